//! The connection to Redis: opened from a `redis://` or `rediss://` URL, shown without its
//! password, and reopened with back-off when the server goes away (a restart, a network cut), so
//! producers and workers ride out an outage instead of failing.

use anyhow::{Context, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Key names: everything Kroon keeps in Redis starts with `kroon:`.
pub mod keys {
    /// The stream every job goes to.
    pub const JOBS: &str = "kroon:jobs";
    /// The consumer group of the workers on [`JOBS`].
    pub const GROUP: &str = "workers";
    /// Results of jobs too malformed to name their run.
    pub const ERRORS: &str = "kroon:errors";
    /// The set of runs, for `status`.
    pub const RUNS: &str = "kroon:runs";

    /// The stream of `run`'s results.
    #[must_use]
    pub fn results(run: &str) -> String {
        format!("kroon:run:{run}:results")
    }

    /// The set of `run`'s jobs issued so far.
    #[must_use]
    pub fn issued(run: &str) -> String {
        format!("kroon:run:{run}:issued")
    }

    /// `run`'s description (a hash: kind, jobs, started).
    #[must_use]
    pub fn run(run: &str) -> String {
        format!("kroon:run:{run}")
    }

    /// A worker thread's heartbeat: a key that expires unless renewed.
    #[must_use]
    pub fn heartbeat(consumer: &str) -> String {
        format!("kroon:worker:{consumer}")
    }

    /// The pattern of every heartbeat key.
    pub const HEARTBEATS: &str = "kroon:worker:*";
}

/// Adds to `pipe` the command that puts a job (its record's bytes) on the jobs stream, as the
/// entry's `job` field, which is where workers read it.
pub fn add_job<'a>(pipe: &'a mut redis::Pipeline, bytes: &[u8]) -> &'a mut redis::Pipeline {
    pipe.cmd("XADD")
        .arg(keys::JOBS)
        .arg("*")
        .arg("job")
        .arg(bytes)
        .ignore()
}

/// `url` with its password replaced by `***`, for logs and messages.
#[must_use]
pub fn redact(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return url.to_owned();
    };
    let userinfo = &rest[..at];
    let user = userinfo.split(':').next().unwrap_or("");
    let shown = if userinfo.contains(':') {
        format!("{user}:***")
    } else if user.is_empty() {
        String::new()
    } else {
        // `redis://secret@host` passes the password alone.
        "***".to_owned()
    };
    format!("{}{shown}{}", &url[..scheme_end], &rest[at..])
}

/// Was `e` the connection failing (worth reconnecting), rather than the server refusing a command?
fn transient(e: &redis::RedisError) -> bool {
    // A wrong password stays wrong: said at once, not retried.
    if e.kind() == redis::ErrorKind::AuthenticationFailed {
        return false;
    }
    e.is_io_error()
        || e.is_timeout()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_unrecoverable_error()
        || e.code() == Some("LOADING")
}

/// A connection that reopens itself.
pub struct Link {
    client: redis::Client,
    con: Option<redis::Connection>,
    shown: String,
    /// Set to give up waiting for the server (Ctrl-C).
    abort: Arc<AtomicBool>,
    /// Longest a reply may take: longer than any BLOCK the callers use.
    read_timeout: Duration,
}

/// The longest wait between two connection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

impl Link {
    /// A link to `url` (`redis://[user:pass@]host:port/[db]`, or `rediss://` for TLS where the
    /// build has it). Nothing is sent until the first command.
    ///
    /// # Errors
    /// A URL the Redis client does not accept (the message shows it without its password).
    pub fn open(url: &str, abort: Arc<AtomicBool>) -> Result<Link> {
        let shown = redact(url);
        let client = redis::Client::open(url)
            .map_err(|e| anyhow::anyhow!("{}", e.to_string().replace(url, &shown)))
            .with_context(|| format!("queue URL {shown}"))?;
        Ok(Link {
            client,
            con: None,
            shown,
            abort,
            read_timeout: Duration::from_secs(10),
        })
    }

    /// The URL without its password.
    #[must_use]
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Runs `f` on the connection, reconnecting with back-off (0.1 s doubling to 5 s) for as
    /// long as the server is unreachable. A command may thus run twice when the connection
    /// dropped after the server acted; every caller's commands are safe to repeat.
    ///
    /// # Errors
    /// The server refused the command, or the abort flag was set while waiting.
    pub fn run<T>(
        &mut self,
        mut f: impl FnMut(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T> {
        let mut backoff = Duration::from_millis(100);
        let mut warned = false;
        loop {
            // `Ok(None)`: connected, the command is next.
            let (step, what, then) = if let Some(con) = self.con.as_mut() {
                (f(con).map(Some), "connection lost", "reconnecting")
            } else {
                let step = self.connect().map(|con| {
                    self.con = Some(con);
                    None
                });
                (step, "cannot connect", "retrying")
            };
            match step {
                Ok(Some(v)) => return Ok(v),
                Ok(None) => {
                    if warned {
                        tracing::warn!("queue {}: connected again", self.shown);
                    }
                }
                Err(e) if transient(&e) => {
                    self.con = None;
                    if !warned {
                        tracing::warn!("queue {}: {what} ({e}); {then} with back-off", self.shown);
                        warned = true;
                    }
                    self.wait(&mut backoff)?;
                }
                Err(e) => return Err(anyhow::anyhow!("queue {}: {e}", self.shown)),
            }
        }
    }

    fn connect(&self) -> redis::RedisResult<redis::Connection> {
        let con = self
            .client
            .get_connection_with_timeout(Duration::from_secs(5))?;
        con.set_read_timeout(Some(self.read_timeout))?;
        con.set_write_timeout(Some(self.read_timeout))?;
        Ok(con)
    }

    fn wait(&self, backoff: &mut Duration) -> Result<()> {
        // Sleep in short steps so that an abort is seen promptly.
        let mut left = *backoff;
        while !left.is_zero() {
            if self.abort.load(Ordering::Relaxed) {
                anyhow::bail!("queue {}: gave up waiting for the server", self.shown);
            }
            let step = left.min(Duration::from_millis(50));
            std::thread::sleep(step);
            left -= step;
        }
        *backoff = (*backoff * 2).min(MAX_BACKOFF);
        Ok(())
    }

    /// Puts a job on the queue and notes its id among `run`'s jobs issued (so that a producer
    /// started again issues nothing twice).
    ///
    /// # Errors
    /// As [`Link::run`].
    pub fn issue(&mut self, run: &str, job: &crate::record::Job) -> Result<()> {
        let bytes = job.to_bytes();
        self.run(|con| {
            add_job(&mut redis::pipe(), &bytes)
                .sadd(keys::issued(run), &job.id)
                .ignore()
                .query::<()>(con)
        })
    }

    /// Makes the consumer group and notes `run` (its kind and job count) for `queue-status`.
    ///
    /// # Errors
    /// As [`Link::run`].
    pub fn register(&mut self, run: &str, kind: &str, jobs: usize) -> Result<()> {
        self.ensure_group()?;
        self.run(|con| {
            redis::pipe()
                .sadd(keys::RUNS, run)
                .hset(keys::run(run), "kind", kind)
                .hset(keys::run(run), "jobs", jobs)
                .query::<()>(con)
        })
    }

    /// The entries of `run`'s results after `last` (at most `count`; `block` waits for one).
    ///
    /// # Errors
    /// As [`Link::run`].
    pub fn results(
        &mut self,
        run: &str,
        last: &str,
        count: usize,
        block: Option<Duration>,
    ) -> Result<Vec<redis::streams::StreamId>> {
        let key = keys::results(run);
        let reply: Option<redis::streams::StreamReadReply> = self.run(|con| {
            let mut cmd = redis::cmd("XREAD");
            cmd.arg("COUNT").arg(count);
            if let Some(b) = block {
                cmd.arg("BLOCK").arg(b.as_millis() as u64);
            }
            cmd.arg("STREAMS").arg(&key).arg(last);
            cmd.query(con)
        })?;
        Ok(reply
            .into_iter()
            .flat_map(|r| r.keys)
            .flat_map(|k| k.ids)
            .collect())
    }

    /// Creates the workers' consumer group on the jobs stream (and the stream), unless it exists.
    ///
    /// # Errors
    /// As [`Link::run`].
    pub fn ensure_group(&mut self) -> Result<()> {
        self.run(|con| {
            let r: redis::RedisResult<()> = redis::cmd("XGROUP")
                .arg("CREATE")
                .arg(keys::JOBS)
                .arg(keys::GROUP)
                .arg("0")
                .arg("MKSTREAM")
                .query(con);
            match r {
                Err(e) if e.code() == Some("BUSYGROUP") => Ok(()),
                other => other,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_are_never_shown() {
        assert_eq!(
            redact("redis://127.0.0.1:6379/0"),
            "redis://127.0.0.1:6379/0"
        );
        assert_eq!(
            redact("redis://kroon:s3cr@t@host:6379/2"),
            "redis://kroon:***@host:6379/2"
        );
        assert_eq!(redact("rediss://:pw@host"), "rediss://:***@host");
        assert_eq!(redact("redis://pw@host/1"), "redis://***@host/1");
        assert_eq!(redact("not a url"), "not a url");
    }
}
