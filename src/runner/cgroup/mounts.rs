//! Where this process's cgroups are: the cgroup mounts of
//! `/proc/self/mountinfo` (a cgroup v2 mount, and the v1 mounts of the
//! `memory` and `cpuacct` controllers) joined with the paths of
//! `/proc/self/cgroup`, giving the folder of each hierarchy that holds
//! coreval now. Pure text handling, so that it can be tested on the
//! layouts of other machines (a container's namespaced root, a hybrid
//! host, a pure v2 one).

use std::path::{Path, PathBuf};

/// The folders of this process's own cgroups, per hierarchy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Own {
    /// In the cgroup v2 hierarchy.
    pub v2: Option<PathBuf>,
    /// In the v1 hierarchy of the memory controller.
    pub memory: Option<PathBuf>,
    /// In the v1 hierarchy of the cpuacct controller.
    pub cpuacct: Option<PathBuf>,
}

/// One cgroup mount: its root inside the hierarchy, where it is mounted,
/// `None` for cgroup2 or the v1 controllers it carries.
struct Mount<'a> {
    root: &'a str,
    point: &'a str,
    controllers: Option<Vec<&'a str>>,
}

/// The cgroup mounts of a `mountinfo` text: fields 4 (root) and 5 (mount
/// point), then after the ` - ` separator the type and the super options.
fn mounts(mountinfo: &str) -> Vec<Mount<'_>> {
    let mut found = Vec::new();
    for line in mountinfo.lines() {
        let Some((left, right)) = line.split_once(" - ") else {
            continue;
        };
        let fields: Vec<&str> = left.split(' ').collect();
        let after: Vec<&str> = right.split(' ').collect();
        let (Some(root), Some(point), Some(kind)) = (fields.get(3), fields.get(4), after.first())
        else {
            continue;
        };
        let controllers = match *kind {
            "cgroup2" => None,
            "cgroup" => Some(after.get(2).map_or(Vec::new(), |o| o.split(',').collect())),
            _ => continue,
        };
        found.push(Mount {
            root,
            point,
            controllers,
        });
    }
    found
}

/// `path` (this process's cgroup in a hierarchy) below the mount of that
/// hierarchy: the mount's root taken off first (a bind mount of a
/// subtree); `None` when the path is outside what is mounted.
fn below(m: &Mount<'_>, path: &str) -> Option<PathBuf> {
    let rest = if m.root == "/" {
        path
    } else {
        path.strip_prefix(m.root)?
    };
    if !(rest.is_empty() || rest.starts_with('/')) {
        return None;
    }
    let rest = rest.trim_start_matches('/');
    Some(Path::new(&unescape(m.point)).join(rest))
}

/// A mountinfo field with its octal escapes (`\040` for a space) undone.
fn unescape(field: &str) -> String {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let digits = b.get(i + 1..i + 4);
        match digits {
            Some(d) if b[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// This process's cgroup folders, from the texts of `/proc/self/mountinfo`
/// and `/proc/self/cgroup` (`ID:CONTROLLERS:PATH` lines; `0::PATH` is v2).
pub(super) fn own(mountinfo: &str, cgroup: &str) -> Own {
    let mounts = mounts(mountinfo);
    let mut own = Own::default();
    for line in cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(names), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if names.is_empty() {
            let v2 = mounts.iter().find(|m| m.controllers.is_none());
            own.v2 = v2.and_then(|m| below(m, path));
            continue;
        }
        for name in names.split(',') {
            let slot = match name {
                "memory" => &mut own.memory,
                "cpuacct" => &mut own.cpuacct,
                _ => continue,
            };
            let mount = mounts
                .iter()
                .find(|m| m.controllers.as_ref().is_some_and(|c| c.contains(&name)));
            *slot = mount.and_then(|m| below(m, path));
        }
    }
    own
}

#[cfg(test)]
mod tests {
    use super::*;

    const HYBRID: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
";

    #[test]
    fn a_hybrid_host_gives_the_v1_folders_and_the_unified_one() {
        let cgroup = "4:memory:/process_api/abc\n2:cpu,cpuacct:/\n0::/\n";
        let own = own(HYBRID, cgroup);
        assert_eq!(
            own.memory.as_deref(),
            Some(Path::new("/sys/fs/cgroup/memory/process_api/abc"))
        );
        assert_eq!(
            own.cpuacct.as_deref(),
            Some(Path::new("/sys/fs/cgroup/cpu,cpuacct"))
        );
        assert_eq!(own.v2.as_deref(), Some(Path::new("/sys/fs/cgroup/unified")));
    }

    #[test]
    fn a_pure_v2_host_and_a_bind_mounted_subtree() {
        let info = "29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";
        let own = own(info, "0::/user.slice/user-1000.slice/session-3.scope\n");
        assert_eq!(
            own.v2.as_deref(),
            Some(Path::new(
                "/sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope"
            ))
        );
        assert_eq!((own.memory, own.cpuacct), (None, None));
        // A container that sees only its own subtree, mounted at its root.
        let info = "29 23 0:26 /docker/x /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        let own = super::own(info, "0::/docker/x/inner\n");
        assert_eq!(own.v2.as_deref(), Some(Path::new("/sys/fs/cgroup/inner")));
        // A path outside what is mounted is no folder.
        let own = super::own(info, "0::/docker/xy\n");
        assert_eq!(own.v2, None);
    }

    #[test]
    fn escaped_mount_points_are_undone() {
        assert_eq!(unescape(r"/mnt/my\040cgroups"), "/mnt/my cgroups");
        assert_eq!(unescape(r"/a\\b"), r"/a\\b");
    }
}
