//! Headless Chromium for the report tests: a screenshot of a page (a URL,
//! so a fragment such as `#pair-0` can be opened) and a PNG's size.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

pub const CHROMIUM: &str = "/usr/bin/chromium";

/// `file://` URL of a local page, with an optional `#fragment`.
pub fn file_url(page: &Path, fragment: &str) -> String {
    format!("file://{}{fragment}", page.display())
}

/// Screenshot `page` (a URL) into `png` with headless Chromium; false on timeout.
pub fn screenshot(page: &str, png: &Path, profile: &Path) -> bool {
    let mut child = std::process::Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1280,2000")
        .arg(page)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(120) {
        if child.try_wait().unwrap().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

/// Width and height from a PNG's IHDR chunk.
pub fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}
