//! The connection to Redis: opened from a `redis://` or `rediss://` URL, shown without its
//! password, and reopened with back-off when the server goes away (a restart, a network cut), so
//! producers and workers ride out an outage instead of failing.

use anyhow::{Context, Result};
use redis::{ClientTlsConfig, TlsCertificates};
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
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
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

/// The query parameters of a `rediss://` URL that name TLS files, as redis-py names them.
mod tls_param {
    /// The client's certificate (PEM), for a server that checks its clients.
    pub const CERT: &str = "ssl_certfile";
    /// The client certificate's private key (PKCS#8 PEM, unencrypted).
    pub const KEY: &str = "ssl_keyfile";
    /// The authorities (PEM) to check the server's certificate against, instead of the system's.
    pub const CA: &str = "ssl_ca_certs";
}

/// The TLS files the query of `url` names (`?ssl_certfile=..&ssl_keyfile=..&ssl_ca_certs=..`),
/// read; `None` when it names none. The Redis client ignores these parameters itself.
///
/// # Errors
/// A file that cannot be read, a certificate without its key (or the reverse), an `ssl_`
/// parameter of another name, or TLS files on a URL that is not `rediss://` or that skips
/// the checks (`#insecure`, which would send no client certificate either).
fn tls_files(url: &str) -> Result<Option<TlsCertificates>> {
    // A URL the parser refuses is the Redis client's to report.
    let Ok(parsed) = url::Url::parse(url) else {
        return Ok(None);
    };
    let (mut cert, mut key, mut ca) = (None, None, None);
    for (name, value) in parsed.query_pairs() {
        let slot = match name.as_ref() {
            tls_param::CERT => &mut cert,
            tls_param::KEY => &mut key,
            tls_param::CA => &mut ca,
            other if other.starts_with("ssl_") => anyhow::bail!(
                "unknown TLS parameter {other} (known: {}, {}, {})",
                tls_param::CERT,
                tls_param::KEY,
                tls_param::CA
            ),
            _ => continue,
        };
        *slot = Some(value.into_owned());
    }
    if cert.is_none() && key.is_none() && ca.is_none() {
        return Ok(None);
    }
    if parsed.scheme() != "rediss" {
        anyhow::bail!("TLS files need a rediss:// URL");
    }
    if parsed.fragment() == Some("insecure") {
        anyhow::bail!(
            "#insecure checks no certificate and sends none: leave it out to use TLS files"
        );
    }
    let read = |path: &str, what: &str| {
        std::fs::read(path).with_context(|| format!("reading the {what} {path}"))
    };
    let client_tls = match (cert, key) {
        (Some(cert), Some(key)) => Some(ClientTlsConfig {
            client_cert: read(&cert, "client certificate")?,
            client_key: read(&key, "client key")?,
        }),
        (None, None) => None,
        _ => anyhow::bail!(
            "{} and {} go together: the client certificate and its key",
            tls_param::CERT,
            tls_param::KEY
        ),
    };
    let root_cert = ca
        .map(|ca| read(&ca, "certificate authorities"))
        .transpose()?;
    Ok(Some(TlsCertificates {
        client_tls,
        root_cert,
    }))
}

/// Over TLS 1.3 a server checks the client's certificate after the handshake, and its refusal
/// (an alert) races the client's first command: the client then often sees only a connection
/// reset, as when the server goes away. A probe that sends nothing and listens tells the two
/// apart: the server's refusal when it refuses this client (`identity`, or none), else `None`
/// (it waits for a command, or cannot be reached).
fn refusal(host: &str, port: u16, identity: Option<&ClientTlsConfig>) -> Option<String> {
    use std::io::Read as _;
    let alert = |text: String| text.contains("alert").then_some(text);
    let mut builder = native_tls::TlsConnector::builder();
    // Only the client's certificate is in question: the link itself checks the server's.
    builder
        .danger_accept_invalid_certs(true)
        .danger_accept_invalid_hostnames(true);
    if let Some(c) = identity {
        builder.identity(native_tls::Identity::from_pkcs8(&c.client_cert, &c.client_key).ok()?);
    }
    let connector = builder.build().ok()?;
    let addr = std::net::ToSocketAddrs::to_socket_addrs(&(host, port))
        .ok()?
        .next()?;
    let tcp = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()?;
    tcp.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    match connector.connect(host, tcp) {
        Ok(mut tls) => tls
            .read(&mut [0u8; 1])
            .err()
            .and_then(|e| alert(e.to_string())),
        Err(e) => alert(e.to_string()),
    }
}

/// Was `e` the connection failing (worth reconnecting), rather than the server refusing a command?
/// On a TLS link, a certificate the other side refused (or that this side could not check) is
/// no outage: it stays refused, and is said at once.
fn transient(e: &redis::RedisError, tls: bool) -> bool {
    // A wrong password stays wrong: said at once, not retried.
    if e.kind() == redis::ErrorKind::AuthenticationFailed {
        return false;
    }
    if tls {
        let text = e.to_string().to_ascii_lowercase();
        if text.contains("certificate") || text.contains("alert") {
            return false;
        }
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
    /// Over TLS (`rediss://`).
    tls: bool,
    /// The client certificate and key the URL names, if any.
    identity: Option<ClientTlsConfig>,
}

/// What [`Link::run`] says of a connection attempt that failed.
const CONNECTING: &str = "cannot connect";

/// The longest wait between two connection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

impl Link {
    /// A link to `url` (`redis://[user:pass@]host:port/[db]`, or `rediss://` for TLS, with
    /// `?ssl_certfile=FILE&ssl_keyfile=FILE` for a client certificate and `ssl_ca_certs=FILE`
    /// for the authorities to trust). Nothing is sent until the first command.
    ///
    /// # Errors
    /// A URL the Redis client does not accept, or TLS files that do not read (the message shows
    /// the URL without its password).
    pub fn open(url: &str, abort: Arc<AtomicBool>) -> Result<Link> {
        let shown = redact(url);
        let files = tls_files(url).with_context(|| format!("queue URL {shown}"))?;
        let hint = match files {
            Some(TlsCertificates {
                client_tls: Some(_),
                ..
            }) => {
                " (a client key must be PKCS#8 PEM, `BEGIN PRIVATE KEY`: `openssl pkcs8 -topk8 \
                 -nocrypt` converts one)"
            }
            _ => "",
        };
        let identity = files.as_ref().and_then(|f| f.client_tls.clone());
        let client = match files {
            Some(files) => redis::Client::build_with_tls(url, files),
            None => redis::Client::open(url),
        }
        .map_err(|e| anyhow::anyhow!("{}", e.to_string().replace(url, &shown)))
        .with_context(|| format!("queue URL {shown}{hint}"))?;
        Ok(Link {
            client,
            con: None,
            tls: url.starts_with("rediss://"),
            identity,
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
        f: impl FnMut(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T> {
        self.run_unless(None, f)
    }

    /// As [`Link::run`], and gives up waiting for the server once `stop` is set too: for a caller
    /// that holds nothing the server must still hear of (a worker between jobs, told to finish).
    ///
    /// # Errors
    /// As [`Link::run`].
    pub fn run_unless<T>(
        &mut self,
        stop: Option<&AtomicBool>,
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
                (step, CONNECTING, "retrying")
            };
            match step {
                Ok(Some(v)) => return Ok(v),
                Ok(None) => {
                    if warned {
                        tracing::warn!("queue {}: connected again", self.shown);
                    }
                }
                Err(e) if transient(&e, self.tls) => {
                    if what == CONNECTING {
                        if let Some(why) = self.refused(&e) {
                            anyhow::bail!(
                                "queue {}: the server refuses this client's TLS certificate \
                                 ({why})",
                                self.shown
                            );
                        }
                    }
                    self.con = None;
                    if !warned {
                        tracing::warn!("queue {}: {what} ({e}); {then} with back-off", self.shown);
                        warned = true;
                    }
                    self.wait(&mut backoff, stop)?;
                }
                Err(e) => return Err(anyhow::anyhow!("queue {}: {e}", self.shown)),
            }
        }
    }

    /// Whether a failed TLS connection, `e`, was the server refusing this client's certificate
    /// (see [`refusal`]): its reason if so.
    fn refused(&self, e: &redis::RedisError) -> Option<String> {
        let text = e.to_string().to_ascii_lowercase();
        if !(text.contains("reset") || text.contains("broken pipe")) {
            return None;
        }
        match self.client.get_connection_info().addr() {
            redis::ConnectionAddr::TcpTls {
                host,
                port,
                insecure: false,
                ..
            } => refusal(host, *port, self.identity.as_ref()),
            _ => None,
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

    fn wait(&self, backoff: &mut Duration, stop: Option<&AtomicBool>) -> Result<()> {
        // Sleep in short steps so that an abort is seen promptly.
        let mut left = *backoff;
        while !left.is_zero() {
            if self.abort.load(Ordering::Relaxed) || stop.is_some_and(|s| s.load(Ordering::Relaxed))
            {
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
    use super::{redact, tls_files};

    #[test]
    fn tls_files_come_from_the_query_of_a_rediss_url() {
        let err = |url: &str| format!("{:#}", tls_files(url).unwrap_err());
        // No TLS files: the client's own parameters are left to it.
        assert!(tls_files("rediss://h:1/0").unwrap().is_none());
        assert!(tls_files("redis://h:1/0?protocol=resp3").unwrap().is_none());
        assert!(tls_files("not a url").unwrap().is_none());
        let dir = std::env::temp_dir().join(format!("kroon-link-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pem = dir.join("x.pem");
        std::fs::write(&pem, "PEM").unwrap();
        let pem = pem.to_str().unwrap();
        let files = tls_files(&format!(
            "rediss://h:1/0?ssl_certfile={pem}&ssl_keyfile={pem}&ssl_ca_certs={pem}"
        ))
        .unwrap()
        .unwrap();
        let client = files.client_tls.unwrap();
        assert_eq!(client.client_cert, b"PEM");
        assert_eq!(client.client_key, b"PEM");
        assert_eq!(files.root_cert.as_deref(), Some(&b"PEM"[..]));
        let ca_only = tls_files(&format!("rediss://h:1/0?ssl_ca_certs={pem}"))
            .unwrap()
            .unwrap();
        assert!(ca_only.client_tls.is_none());
        assert!(err(&format!("rediss://h:1/0?ssl_certfile={pem}")).contains("go together"));
        assert!(err(&format!("rediss://h:1/0?ssl_keyfile={pem}")).contains("go together"));
        assert!(err(&format!("redis://h:1/0?ssl_ca_certs={pem}")).contains("rediss://"));
        assert!(err(&format!("rediss://h:1/0?ssl_ca_certs={pem}#insecure")).contains("#insecure"));
        assert!(err(&format!("rediss://h:1/0?ssl_cafile={pem}")).contains("unknown TLS parameter"));
        let missing = err("rediss://h:1/0?ssl_ca_certs=/no/such/ca.pem");
        assert!(missing.contains("/no/such/ca.pem"), "{missing}");
        let _ = std::fs::remove_dir_all(&dir);
    }

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
        // A path in the query is no password, even with an `@` in it.
        assert_eq!(
            redact("rediss://:pw@host?ssl_certfile=/a@b/c.pem"),
            "rediss://:***@host?ssl_certfile=/a@b/c.pem"
        );
        assert_eq!(
            redact("rediss://host:6380?ssl_certfile=/a@b/c.pem"),
            "rediss://host:6380?ssl_certfile=/a@b/c.pem"
        );
    }
}
