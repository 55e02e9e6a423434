//! `kroon serve` as the tests run it: on a free loopback port, one search thread, killed when
//! dropped.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

pub struct Server {
    child: Child,
    pub addr: SocketAddr,
}

impl Server {
    /// Starts the binary and waits for the line that names its address.
    pub fn start() -> Server {
        let mut child = Command::new(super::KROON)
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--threads",
                "1",
                "--hash",
                "16",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start kroon serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the address line");
        let addr = line
            .trim()
            .strip_prefix("kroon serve: listening on http://")
            .and_then(|rest| rest.trim_end_matches('/').parse().ok())
            .unwrap_or_else(|| panic!("no address in `{line}`"));
        Server { child, addr }
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        self.child.try_wait().expect("wait").is_none()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
