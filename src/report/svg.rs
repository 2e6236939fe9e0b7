//! Small inline-SVG charts for the HTML report (no scripts, no network):
//! a horizontal bar chart, a scatter plot, a cactus (sorted-times) plot and
//! an occupancy plot (running jobs over time), with linear or logarithmic
//! axes and a legend.

use std::fmt::Write;

/// Colours for series, reused cyclically.
pub const PALETTE: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

const W: f64 = 600.0;
const H: f64 = 340.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 46.0;

/// Escape text for XML/HTML.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One named set of points.
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Fill colour (CSS).
    pub color: &'static str,
    /// (x, y) points.
    pub points: Vec<(f64, f64)>,
}

/// An axis mapping values to pixels.
#[derive(Clone, Copy)]
struct Scale {
    lo: f64,
    hi: f64,
    log: bool,
    p0: f64,
    p1: f64,
}

impl Scale {
    fn new(min: f64, max: f64, log: bool, p0: f64, p1: f64) -> Self {
        let (lo, hi) = if log {
            let lo = min.max(1e-3).log10().floor();
            let hi = max.max(min.max(1e-3) * 10.0).log10().ceil();
            (lo, hi.max(lo + 1.0))
        } else {
            let step = nice_step(max.max(1e-9) / 5.0);
            (0.0, (max / step).ceil().max(1.0) * step)
        };
        Scale {
            lo,
            hi,
            log,
            p0,
            p1,
        }
    }

    fn map(&self, v: f64) -> f64 {
        let t = if self.log {
            v.max(10f64.powf(self.lo)).log10()
        } else {
            v
        };
        self.p0 + (t - self.lo) / (self.hi - self.lo) * (self.p1 - self.p0)
    }

    /// The ticks and their labels. A label has exactly the decimals its
    /// step needs (`0.2` steps: `0.6`, never `0.6000000000000001`; `0.5`
    /// steps: `1.5`, never a rounded `2`); powers of ten on a log scale.
    fn ticks(&self) -> Vec<(f64, String)> {
        if self.log {
            (self.lo as i32..=self.hi as i32)
                .map(|k| (10f64.powi(k), power_label(k)))
                .collect()
        } else {
            let step = nice_step(self.hi / 5.0);
            let decimals = (-step.log10().floor()).max(0.0) as usize;
            (0..=((self.hi / step).round() as usize))
                .map(|i| {
                    let v = i as f64 * step;
                    (v, tick_label(v, decimals))
                })
                .collect()
        }
    }
}

fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    mag * if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// A linear tick with `decimals` digits after the point; a large one in
/// exponent form.
fn tick_label(v: f64, decimals: usize) -> String {
    if v >= 1e6 {
        format!("{v:.0e}")
    } else {
        format!("{v:.decimals$}")
    }
}

/// The label of the tick 10^k: `0.01`, `1`, `1000`, `1e6`.
fn power_label(k: i32) -> String {
    if k >= 6 {
        format!("1e{k}")
    } else {
        tick_label(10f64.powi(k), (-k).max(0) as usize)
    }
}

/// The `<svg>` element of a plot `h` high with its title centred at `cx`,
/// and the vertical grid lines and labels of the x scale.
fn open_plot(out: &mut String, title: &str, h: f64, cx: f64, xs: &Scale) {
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {h}" width="{W}" height="{h}" class="plot" role="img"><title>{t}</title><text x="{cx}" y="20" text-anchor="middle" class="pt">{t}</text>"#,
        t = esc(title),
    );
    for (v, l) in xs.ticks() {
        let x = xs.map(v);
        let _ = write!(
            out,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{y2}" stroke="#e5e5e5"/><text x="{x:.1}" y="{ty}" text-anchor="middle" class="tk">{l}</text>"##,
            y2 = h - BOTTOM,
            ty = h - BOTTOM + 14.0,
        );
    }
}

fn frame(out: &mut String, title: &str, xl: &str, yl: &str, xs: Scale, ys: Scale) {
    open_plot(out, title, H, LEFT + (W - LEFT - RIGHT) / 2.0, &xs);
    for (v, l) in ys.ticks() {
        let y = ys.map(v);
        let _ = write!(
            out,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{x2}" y2="{y:.1}" stroke="#e5e5e5"/><text x="{tx}" y="{ty:.1}" text-anchor="end" class="tk">{l}</text>"##,
            x2 = W - RIGHT,
            tx = LEFT - 5.0,
            ty = y + 4.0,
        );
    }
    let _ = write!(
        out,
        r##"<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/><text x="{cx}" y="{by}" text-anchor="middle" class="al">{xl}</text><text transform="translate(14 {cy}) rotate(-90)" text-anchor="middle" class="al">{yl}</text>"##,
        pw = W - LEFT - RIGHT,
        ph = H - TOP - BOTTOM,
        cx = LEFT + (W - LEFT - RIGHT) / 2.0,
        by = H - 8.0,
        cy = TOP + (H - TOP - BOTTOM) / 2.0,
        xl = esc(xl),
        yl = esc(yl)
    );
}

fn legend(out: &mut String, names: &[(&str, &str)]) {
    for (i, (n, color)) in names.iter().enumerate() {
        let y = TOP + 8.0 + i as f64 * 16.0;
        let x = W - RIGHT + 10.0;
        let short: String = n.chars().take(26).collect();
        let _ = write!(
            out,
            r#"<rect x="{x}" y="{ry}" width="10" height="10" fill="{c}"/><text x="{tx}" y="{ty}" class="lg">{t}</text>"#,
            ry = y - 9.0,
            c = color,
            tx = x + 14.0,
            ty = y,
            t = esc(&short)
        );
    }
}

/// Horizontal bars, one per (label, value, colour).
pub fn bar_chart(title: &str, x_label: &str, bars: &[(String, f64, &str)]) -> String {
    let max = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    let left = 180.0;
    let row = 22.0;
    let h = TOP + BOTTOM + row * bars.len().max(1) as f64;
    let xs = Scale::new(0.0, max.max(1.0), false, left, W - 30.0);
    let mut out = String::new();
    open_plot(&mut out, title, h, W / 2.0, &xs);
    for (i, (label, v, color)) in bars.iter().enumerate() {
        let y = TOP + 3.0 + i as f64 * row;
        let short: String = label.chars().take(28).collect();
        let _ = write!(
            out,
            r#"<text x="{tx}" y="{ty}" text-anchor="end" class="lg">{l}</text><rect x="{left}" y="{y}" width="{bw:.1}" height="{bh}" fill="{c}"><title>{l}: {v}</title></rect>"#,
            tx = left - 6.0,
            ty = y + 13.0,
            l = esc(&short),
            bw = (xs.map(*v) - left).max(0.5),
            bh = row - 6.0,
            c = color,
        );
    }
    let _ = write!(
        out,
        r#"<text x="{cx}" y="{by}" text-anchor="middle" class="al">{xl}</text></svg>"#,
        cx = (left + W - 30.0) / 2.0,
        by = h - 8.0,
        xl = esc(x_label)
    );
    out
}

/// A scatter plot with a diagonal y = x (for "against the best known").
pub fn scatter(title: &str, x_label: &str, y_label: &str, series: &[Series], log: bool) -> String {
    let all = series.iter().flat_map(|s| s.points.iter());
    let max = all.clone().map(|p| p.0.max(p.1)).fold(1.0, f64::max);
    let min = all
        .map(|p| p.0.min(p.1))
        .fold(max, f64::min)
        .max(if log { 1.0 } else { 0.0 });
    let xs = Scale::new(min, max, log, LEFT, W - RIGHT);
    let ys = Scale::new(min, max, log, H - BOTTOM, TOP);
    let mut out = String::new();
    frame(&mut out, title, x_label, y_label, xs, ys);
    let (a, b) = (
        10f64.powf(xs.lo).max(if log { 1e-3 } else { 0.0 }),
        if log { 10f64.powf(xs.hi) } else { xs.hi },
    );
    let _ = write!(
        out,
        r##"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#999" stroke-dasharray="4 3"/>"##,
        xs.map(a),
        ys.map(a),
        xs.map(b),
        ys.map(b)
    );
    for s in series {
        let _ = write!(out, r#"<g fill="{}" fill-opacity="0.55">"#, s.color);
        for (x, y) in &s.points {
            let _ = write!(
                out,
                r#"<circle cx="{:.1}" cy="{:.1}" r="2.5"/>"#,
                xs.map(*x),
                ys.map(*y)
            );
        }
        out.push_str("</g>");
    }
    let names: Vec<(&str, &str)> = series.iter().map(|s| (s.name.as_str(), s.color)).collect();
    legend(&mut out, &names);
    out.push_str("</svg>");
    out
}

/// A cactus plot: per series its values sorted ascending, plotted against
/// their rank (how many finish within a given time). One (name, colour,
/// values) per series.
pub fn cactus(title: &str, y_label: &str, series: &[(String, &str, Vec<f64>)]) -> String {
    let n = series.iter().map(|s| s.2.len()).max().unwrap_or(0).max(1);
    let max = series
        .iter()
        .flat_map(|s| s.2.iter().copied())
        .fold(1.0, f64::max);
    let min = series
        .iter()
        .flat_map(|s| s.2.iter().copied())
        .fold(max, f64::min)
        .max(0.01);
    let xs = Scale::new(0.0, n as f64, false, LEFT, W - RIGHT);
    let ys = Scale::new(min, max, true, H - BOTTOM, TOP);
    let mut out = String::new();
    frame(&mut out, title, "pairs (sorted by time)", y_label, xs, ys);
    for (_, color, values) in series {
        let mut v = values.clone();
        v.sort_by(f64::total_cmp);
        let pts = monotone_points(
            v.iter()
                .enumerate()
                .map(|(k, t)| (xs.map(k as f64 + 1.0), ys.map(*t))),
        );
        let _ = write!(
            out,
            r#"<polyline fill="none" stroke="{}" stroke-width="1.5" points="{}"/>"#,
            color,
            pts.join(" ")
        );
    }
    let names: Vec<(&str, &str)> = series.iter().map(|s| (s.0.as_str(), s.1)).collect();
    legend(&mut out, &names);
    out.push_str("</svg>");
    out
}

/// The points of a curve that never goes back along either axis (a cactus
/// plot: pairs sorted by time), as drawn (`x,y` to a tenth of a pixel),
/// without the points the drawing does not need: a repeated point, and
/// the middle of three on one vertical or horizontal line. The line drawn
/// is the same; its size is bounded by the plot's pixels, not by the number
/// of pairs (a million pairs draw as a few thousand points).
fn monotone_points(points: impl Iterator<Item = (f64, f64)>) -> Vec<String> {
    // Compared as drawn (tenths of a pixel), printed only when kept.
    let mut kept: Vec<((Tenths, Tenths), (f64, f64))> = Vec::new();
    for (x, y) in points {
        let p = (Tenths::of(x), Tenths::of(y));
        if kept.last().is_some_and(|k| k.0 == p) {
            continue;
        }
        if let [.., a, b] = kept.as_slice() {
            let (a, b) = (&a.0, &b.0);
            if (a.0 == b.0 && b.0 == p.0) || (a.1 == b.1 && b.1 == p.1) {
                kept.pop();
            }
        }
        kept.push((p, (x, y)));
    }
    kept.into_iter()
        .map(|(_, (x, y))| format!("{x:.1},{y:.1}"))
        .collect()
}

/// A coordinate as `{:.1}` prints it, compared without printing it: equal
/// exactly when the printed texts are.
#[derive(Clone, Debug, PartialEq)]
enum Tenths {
    /// A value printed without a sign, as a count of tenths.
    Count(i64),
    /// Any other value, as printed.
    Printed(String),
}

impl Tenths {
    fn of(v: f64) -> Tenths {
        let t = v * 10.0;
        let r = t.round();
        // Away from a tie, rounding the product rounds as printing does
        // (its error is far below the distance to the tie).
        if v > 0.0 && t < 1e15 && (t - r).abs() < 0.499_999 {
            return Tenths::Count(r as i64);
        }
        let text = format!("{v:.1}");
        match text.replace('.', "").parse::<i64>() {
            Ok(n) if !text.starts_with('-') => Tenths::Count(n),
            _ => Tenths::Printed(text),
        }
    }
}

/// Running jobs over time against the slot count (a dashed line): per time
/// bin (one per pixel column) the mean number of runs in progress, from
/// their (start, end) times; the x axis is seconds since the first start.
pub fn occupancy(title: &str, runs: &[(f64, f64)], slots: usize) -> String {
    let t0 = runs.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
    let t1 = runs.iter().map(|r| r.1).fold(f64::NEG_INFINITY, f64::max);
    let span = if runs.is_empty() {
        1.0
    } else {
        (t1 - t0).max(1e-3)
    };
    let xs = Scale::new(0.0, span, false, LEFT, W - RIGHT);
    let bins = (W - LEFT - RIGHT) as usize;
    let width = xs.hi / bins as f64;
    let mut running = vec![0.0; bins];
    for &(start, end) in runs {
        let (a, b) = (start - t0, end.max(start) - t0);
        let first = ((a / width) as usize).min(bins - 1);
        let last = ((b / width) as usize).min(bins - 1);
        for (i, r) in running.iter_mut().enumerate().take(last + 1).skip(first) {
            let lo = a.max(i as f64 * width);
            let hi = b.min((i + 1) as f64 * width);
            *r += (hi - lo).max(0.0) / width;
        }
    }
    // Sums of fractions: round off the float noise (1.9999999 runs is 2).
    running
        .iter_mut()
        .for_each(|r| *r = (*r * 1e6).round() / 1e6);
    let peak = running.iter().copied().fold(slots.max(1) as f64, f64::max);
    let ys = Scale::new(0.0, peak, false, H - BOTTOM, TOP);
    let mut out = String::new();
    frame(
        &mut out,
        title,
        "seconds since the first start",
        "running jobs",
        xs,
        ys,
    );
    let mut pts = vec![format!("{:.1},{:.1}", xs.map(0.0), ys.map(0.0))];
    for (i, r) in running.iter().enumerate() {
        let (x0, x1, y) = (
            xs.map(i as f64 * width),
            xs.map((i + 1) as f64 * width),
            ys.map(*r),
        );
        pts.push(format!("{x0:.1},{y:.1} {x1:.1},{y:.1}"));
    }
    pts.push(format!("{:.1},{:.1}", xs.map(xs.hi), ys.map(0.0)));
    let y = ys.map(slots as f64);
    let _ = write!(
        out,
        r##"<polygon fill="{c}" fill-opacity="0.35" stroke="{c}" stroke-width="1" points="{p}"/><line x1="{LEFT}" y1="{y:.1}" x2="{x2}" y2="{y:.1}" stroke="{s}" stroke-width="1.5" stroke-dasharray="6 4"/>"##,
        c = PALETTE[0],
        s = PALETTE[1],
        p = pts.join(" "),
        x2 = W - RIGHT,
    );
    let slot_label = format!("slots ({slots})");
    legend(
        &mut out,
        &[
            ("running (mean per bin)", PALETTE[0]),
            (&slot_label, PALETTE[1]),
        ],
    );
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cactus_of_many_pairs_draws_the_same_line_with_few_points() {
        let pts: Vec<(f64, f64)> = (0..1_000_000)
            .map(|k| (k as f64 / 2000.0, (k / 100_000) as f64))
            .collect();
        let kept = monotone_points(pts.iter().copied());
        assert!(kept.len() < 10_000, "{}", kept.len());
        assert_eq!(kept.first().unwrap(), "0.0,0.0");
        assert_eq!(kept.last().unwrap(), "500.0,9.0");
        // Nothing to drop: every point stays.
        let zigzag = [(0.0, 0.0), (1.0, 1.0), (2.0, 3.0)];
        assert_eq!(monotone_points(zigzag.into_iter()).len(), 3);
        // A horizontal run keeps its ends only.
        let flat = [(0.0, 1.0), (1.0, 1.0), (2.0, 1.0), (3.0, 2.0)];
        assert_eq!(
            monotone_points(flat.into_iter()),
            vec!["0.0,1.0", "2.0,1.0", "3.0,2.0"]
        );
    }

    #[test]
    fn tenths_are_equal_exactly_when_the_printed_texts_are() {
        // Ties (0.25 prints 0.2, 0.35 prints 0.3: the binary values), signs,
        // zeros, large values and values near a tenth's edge.
        let mut values = vec![0.0, -0.0, 0.04, -0.04, 0.05, 0.25, 0.35, 1e16, -3.0, 1.0];
        values.extend((0..20_000).map(|k| k as f64 * 0.005 + 1e-12 * (k % 3) as f64));
        values.extend((0..2_000).map(|k| 0.05 + k as f64 * 0.1));
        for &a in &values {
            for &b in &values[..40] {
                let same_text = format!("{a:.1}") == format!("{b:.1}");
                assert_eq!(Tenths::of(a) == Tenths::of(b), same_text, "{a} {b}");
            }
            let same_next = format!("{a:.1}") == format!("{:.1}", a + 0.005);
            assert_eq!(Tenths::of(a) == Tenths::of(a + 0.005), same_next, "{a}");
        }
    }

    #[test]
    fn scales_and_ticks() {
        let s = Scale::new(0.0, 947.0, false, 0.0, 100.0);
        assert_eq!(s.hi, 1000.0);
        assert_eq!(s.ticks().len(), 6);
        let l = Scale::new(0.5, 2400.0, true, 0.0, 100.0);
        assert_eq!((l.lo, l.hi), (-1.0, 4.0));
        assert!((l.map(1.0) - 20.0).abs() < 1e-9);
    }

    #[test]
    fn tick_labels_have_the_decimals_of_their_step() {
        let labels = |s: Scale| s.ticks().into_iter().map(|(_, l)| l).collect::<Vec<_>>();
        // The wall-time plot of a fast campaign: 0.2 steps.
        assert_eq!(
            labels(Scale::new(0.0, 0.93, false, 0.0, 1.0)),
            ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        );
        assert_eq!(
            labels(Scale::new(0.0, 2.3, false, 0.0, 1.0)),
            ["0.0", "0.5", "1.0", "1.5", "2.0", "2.5"]
        );
        assert_eq!(
            labels(Scale::new(0.0, 0.07, false, 0.0, 1.0)),
            ["0.00", "0.02", "0.04", "0.06", "0.08"]
        );
        assert_eq!(
            labels(Scale::new(0.0, 947.0, false, 0.0, 1.0)),
            ["0", "200", "400", "600", "800", "1000"]
        );
        assert_eq!(
            labels(Scale::new(0.005, 2400.0, true, 0.0, 1.0)),
            ["0.001", "0.01", "0.1", "1", "10", "100", "1000", "10000"]
        );
        for (_, l) in Scale::new(0.0, 1e-7, false, 0.0, 1.0).ticks() {
            assert!(l.len() < 14, "{l}");
        }
    }

    #[test]
    fn charts_are_well_formed_and_escaped() {
        let b = bar_chart("a<b", "x", &[("s&t".into(), 3.0, PALETTE[0])]);
        assert!(b.starts_with("<svg") && b.ends_with("</svg>"));
        assert!(b.contains("a&lt;b") && b.contains("s&amp;t"));
        let sc = scatter(
            "t",
            "x",
            "y",
            &[Series {
                name: "s".into(),
                color: PALETTE[0],
                points: vec![(1.0, 2.0)],
            }],
            true,
        );
        assert_eq!(sc.matches("<circle").count(), 1);
        let c = cactus("t", "s", &[("s".into(), PALETTE[1], vec![3.0, 1.0, 2.0])]);
        assert!(c.contains("<polyline"));
    }

    #[test]
    fn occupancy_is_the_mean_of_running_jobs_per_bin() {
        // Two slots: one busy for the whole span, the other for its first half.
        let o = occupancy("solve", &[(100.0, 110.0), (100.0, 105.0)], 2);
        assert!(o.starts_with("<svg") && o.ends_with("</svg>"));
        assert!(o.contains("slots (2)") && o.contains("stroke-dasharray"));
        let ys = Scale::new(0.0, 2.0, false, H - BOTTOM, TOP);
        let (two, one) = (
            format!(",{:.1} ", ys.map(2.0)),
            format!(",{:.1} ", ys.map(1.0)),
        );
        assert!(
            o.contains(&two) && o.contains(&one),
            "both levels are drawn: {o}"
        );
        assert!(occupancy("check", &[], 4).contains("slots (4)"));
    }
}
