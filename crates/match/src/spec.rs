//! What the command line says about engines and time: `--engine` specs, command lines split into
//! words, and the time control.

use anyhow::{bail, Context, Result};
use kroon_protocol::hub::{tokenize, Level};
use std::path::PathBuf;
use std::time::Duration;

/// How to reach an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// A Hub engine: a program started once per worker and restarted after a failure.
    Hub {
        /// The program and its arguments.
        argv: Vec<String>,
        /// Working directory (`dir=`), if not the current one.
        dir: Option<PathBuf>,
        /// `option.NAME=VALUE`: sent as `set-param` before `init`, in the order given.
        options: Vec<(String, String)>,
        /// `level.KEY=VALUE`: sent as one `level` line after the match's own before every move,
        /// so its keys override the match's (a strength handicap, a node budget of its own).
        levels: Vec<(String, String)>,
    },
    /// A DXP engine listening at this address; the manager connects to it as the initiator.
    Dxp {
        /// `host:port`.
        addr: String,
    },
    /// An engine given by its name alone (`name=` without `cmd=` or `dxp=`): a queued match's
    /// workers start it from their own engines files, so the producer needs no command for it.
    /// A local match refuses it.
    Named,
}

/// One participant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// The name in tables and PDN headers (`name=`; default: the program's file name or the address).
    pub name: String,
    /// How to reach it.
    pub kind: EngineKind,
}

/// Reads one `--engine` spec: `key=value` words (`name`, `cmd`, `dir`, `dxp`, `option.NAME`,
/// `level.KEY`). A spec of a name alone is an [`EngineKind::Named`] engine.
///
/// The shell has usually split the words already (`cmd="kroon hub"` arrives as `cmd=kroon hub`), so
/// each word is split at its first `=`. A word holding a double quote is read as Hub-style pairs
/// instead, so that a whole spec in one argument (`'name=K cmd="kroon hub"'`) works too.
///
/// # Errors
/// A word without `=`, an unknown key, both `cmd` and `dxp`, or neither and no name.
pub fn parse_engine(words: &[String]) -> Result<EngineSpec> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for word in words {
        if word.contains('"') {
            let t = tokenize(&format!("engine {word}"))
                .map_err(|e| anyhow::anyhow!("engine spec `{word}`: {e}"))?;
            for arg in t.args {
                let Some(value) = arg.value else {
                    bail!("engine spec: `{}` needs a value (key=value)", arg.key);
                };
                pairs.push((arg.key, value));
            }
        } else {
            let Some((k, v)) = word.split_once('=') else {
                bail!("engine spec: `{word}` is not key=value (keys: name, cmd, dir, dxp, option.NAME, level.KEY)");
            };
            pairs.push((k.to_owned(), v.to_owned()));
        }
    }
    let (mut name, mut cmd, mut dir, mut dxp) = (None, None, None, None);
    let (mut options, mut levels) = (Vec::new(), Vec::new());
    for (key, value) in pairs {
        match key.as_str() {
            "name" => name = Some(value),
            "cmd" => cmd = Some(value),
            "dir" => dir = Some(PathBuf::from(value)),
            "dxp" => dxp = Some(value),
            k if k.starts_with("level.") && k.len() > "level.".len() => {
                levels.push((k["level.".len()..].to_owned(), value));
            }
            k => match k.strip_prefix("option.") {
                Some(opt) if !opt.is_empty() => options.push((opt.to_owned(), value)),
                _ => bail!(
                    "engine spec: unknown key `{key}` (keys: name, cmd, dir, dxp, option.NAME, level.KEY)"
                ),
            },
        }
    }
    let (kind, default_name) = match (cmd, dxp) {
        (Some(cmd), None) => {
            let argv = split_command(&cmd).with_context(|| format!("cmd=`{cmd}`"))?;
            let program = std::path::Path::new(&argv[0])
                .file_name()
                .map_or_else(|| argv[0].clone(), |f| f.to_string_lossy().into_owned());
            if let Some(line) = level_line(&levels) {
                match kroon_protocol::hub::parse(&line) {
                    Ok(kroon_protocol::hub::HubCommand::Level(_)) => {}
                    Ok(_) => unreachable!("a level line parses as level"),
                    Err(e) => bail!("engine spec: `{line}`: {e}"),
                }
            }
            let kind = EngineKind::Hub {
                argv,
                dir,
                options,
                levels,
            };
            (Some(kind), program)
        }
        (None, Some(addr)) => {
            if !options.is_empty() || !levels.is_empty() || dir.is_some() {
                bail!(
                    "engine spec: option.*, level.* and dir= apply to Hub engines (cmd=), not to dxp="
                );
            }
            if !addr.contains(':') {
                bail!("engine spec: dxp=`{addr}` must be host:port, e.g. 127.0.0.1:27531");
            }
            (Some(EngineKind::Dxp { addr: addr.clone() }), addr)
        }
        (Some(_), Some(_)) => bail!("engine spec: give cmd= (Hub) or dxp= (DXP), not both"),
        (None, None) => {
            let Some(name) = name.as_ref() else {
                bail!("engine spec: needs cmd=\"PROGRAM ARGS\" (Hub) or dxp=HOST:PORT");
            };
            if !options.is_empty() || !levels.is_empty() || dir.is_some() {
                bail!(
                    "engine spec: option.*, level.* and dir= go with cmd= (the engines of a \
                     queued match take theirs from the workers' engines files)"
                );
            }
            (Some(EngineKind::Named), name.clone())
        }
    };
    let name = name.unwrap_or(default_name);
    if name.trim().is_empty() {
        bail!("engine spec: empty name");
    }
    Ok(EngineSpec {
        name,
        kind: kind.expect("set above"),
    })
}

/// The `level` line of an engine's `level.KEY=VALUE` pairs; `None` when it has none.
#[must_use]
pub fn level_line(levels: &[(String, String)]) -> Option<String> {
    (!levels.is_empty()).then(|| {
        let pairs: Vec<String> = levels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("level {}", pairs.join(" "))
    })
}

/// Splits a command line into words as a POSIX shell would for plain words: blanks separate,
/// single quotes keep everything, double quotes keep all but `\"` and `\\`, a backslash outside
/// quotes escapes the next character. No variables, globs or redirections.
///
/// # Errors
/// An unclosed quote, or nothing to run.
pub fn split_command(cmd: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => bail!("unclosed single quote"),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => bail!("unclosed double quote"),
                        },
                        Some(c) => word.push(c),
                        None => bail!("unclosed double quote"),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        bail!("empty command");
    }
    Ok(words)
}

/// How long engines may think.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TimeControl {
    /// The same time for every move; a move over it (plus the margin) loses.
    MoveTime(Duration),
    /// A game clock: `base` to start with and `inc` added before every move (Hub's convention).
    Clock {
        /// Time on each clock at the start.
        base: Duration,
        /// Added before each move.
        inc: Duration,
    },
    /// A fixed depth; only the hang timeout limits the time.
    Depth(u32),
    /// About this many nodes; only the hang timeout limits the time.
    Nodes(u64),
}

impl TimeControl {
    /// Reads `--tc` text: `60+0.5`, `60` (no increment), or `1:30+1` (minutes:seconds).
    ///
    /// # Errors
    /// Text that is not such a time control.
    pub fn parse_clock(text: &str) -> Result<TimeControl> {
        let (base, inc) = match text.split_once('+') {
            Some((b, i)) => (b, i),
            None => (text, "0"),
        };
        let base_secs = match base.split_once(':') {
            Some((m, s)) => parse_secs(m)? * 60.0 + parse_secs(s)?,
            None => parse_secs(base)?,
        };
        let inc_secs = parse_secs(inc)?;
        if base_secs <= 0.0 && inc_secs <= 0.0 {
            bail!("--tc {text}: the clock needs some time");
        }
        Ok(TimeControl::Clock {
            base: Duration::from_secs_f64(base_secs),
            inc: Duration::from_secs_f64(inc_secs),
        })
    }

    /// The Hub `level` for a move, given the mover's clock.
    #[must_use]
    pub fn level(&self, left: Duration) -> Level {
        match *self {
            TimeControl::MoveTime(t) => Level::MoveTime(t.as_secs_f64()),
            TimeControl::Clock { inc, .. } => Level::Clock {
                moves: None,
                time: round_ms(left),
                inc: round_ms(inc),
            },
            TimeControl::Depth(d) => Level::Depth(d),
            TimeControl::Nodes(n) => Level::Nodes(n),
        }
    }

    /// For the DXP game request: thinking time in whole minutes, and the number of moves it is
    /// for (0: the whole game). DXP cannot say "per move", seconds or an increment, so a move
    /// time `t` is sent as 50 moves in `50·t` rounded up to a minute, a clock as its base rounded
    /// up to a minute, and depth and nodes games as 10 minutes. The manager still holds a DXP
    /// engine to the match's own limits, as it does a Hub engine: give the engine the same
    /// per-move time on its side (e.g. `kroon dxp --move-time`), and use whole minutes for `--tc`.
    #[must_use]
    pub fn dxp_minutes(&self) -> (u16, u16) {
        let minutes = |d: Duration| u16::try_from(d.as_secs().div_ceil(60).max(1)).unwrap_or(999);
        match *self {
            TimeControl::MoveTime(t) => (minutes(t * 50), 50),
            TimeControl::Clock { base, .. } => (minutes(base), 0),
            TimeControl::Depth(_) | TimeControl::Nodes(_) => (10, 0),
        }
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeControl::MoveTime(t) => write!(f, "{} s/move", t.as_secs_f64()),
            TimeControl::Clock { base, inc } => {
                write!(f, "{}+{} s", base.as_secs_f64(), inc.as_secs_f64())
            }
            TimeControl::Depth(d) => write!(f, "depth {d}"),
            TimeControl::Nodes(n) => write!(f, "{n} nodes"),
        }
    }
}

/// Seconds as a real, to the millisecond: Hub lines stay short (`time=59.512`).
fn round_ms(d: Duration) -> f64 {
    d.as_millis() as f64 / 1000.0
}

/// A non-negative number of seconds.
///
/// # Errors
/// Anything else.
pub fn parse_secs(text: &str) -> Result<f64> {
    match text.trim().parse::<f64>() {
        Ok(x) if (0.0..1e9).contains(&x) => Ok(x),
        _ => bail!("`{text}` is not a number of seconds"),
    }
}

/// Seconds given as a number on the command line (`what` names the flag).
///
/// # Errors
/// A negative, infinite or absurdly large number.
pub fn duration(secs: f64, what: &str) -> Result<Duration> {
    if (0.0..1e9).contains(&secs) {
        Ok(Duration::from_secs_f64(secs))
    } else {
        bail!("{what}: `{secs}` is not a number of seconds")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn engine_specs() {
        let e = parse_engine(&words(&[
            "name=Kroon",
            "cmd=target/release/kroon hub",
            "option.threads=1",
        ]))
        .unwrap();
        assert_eq!(e.name, "Kroon");
        assert_eq!(
            e.kind,
            EngineKind::Hub {
                argv: words(&["target/release/kroon", "hub"]),
                dir: None,
                options: vec![("threads".into(), "1".into())],
                levels: vec![],
            }
        );
        // An engine's own level keys, checked as a Hub `level` line.
        let weak = parse_engine(&words(&[
            "cmd=kroon hub",
            "level.handicap=3",
            "level.nodes=50",
        ]))
        .unwrap();
        let EngineKind::Hub { levels, .. } = &weak.kind else {
            panic!("a Hub engine")
        };
        assert_eq!(
            level_line(levels).as_deref(),
            Some("level handicap=3 nodes=50")
        );
        assert!(parse_engine(&words(&["cmd=kroon hub", "level.nodes=many"])).is_err());
        assert!(parse_engine(&words(&["dxp=a:1", "level.nodes=5"])).is_err());
        let one = parse_engine(&words(&[r#"name=dame cmd="dame hub" option.hash=16"#])).unwrap();
        assert_eq!(one.name, "dame");
        assert!(
            matches!(one.kind, EngineKind::Hub { ref argv, .. } if argv == &words(&["dame", "hub"]))
        );
        let d = parse_engine(&words(&["dxp=127.0.0.1:27531"])).unwrap();
        assert_eq!(d.name, "127.0.0.1:27531");
        assert_eq!(
            d.kind,
            EngineKind::Dxp {
                addr: "127.0.0.1:27531".into()
            }
        );
        let unnamed = parse_engine(&words(&["cmd=/usr/bin/scan hub"])).unwrap();
        assert_eq!(unnamed.name, "scan");
        // A name alone: an engine the workers of a queued match know by that name.
        let named = parse_engine(&words(&["name=x"])).unwrap();
        assert_eq!(
            (named.name.as_str(), &named.kind),
            ("x", &EngineKind::Named)
        );
        assert!(parse_engine(&words(&["name=x", "option.hash=16"])).is_err());
        assert!(parse_engine(&words(&["name=x", "level.nodes=5"])).is_err());
        assert!(parse_engine(&words(&["name=x", "dir=/tmp"])).is_err());
        assert!(parse_engine(&words(&["option.hash=16"])).is_err());
        assert!(parse_engine(&words(&[])).is_err());
        assert!(parse_engine(&words(&["cmd=a", "dxp=b:1"])).is_err());
        assert!(parse_engine(&words(&["cmd=a", "colour=red"])).is_err());
        assert!(parse_engine(&words(&["threads"])).is_err());
        assert!(parse_engine(&words(&["dxp=localhost"])).is_err());
    }

    #[test]
    fn commands_split_like_a_shell() {
        assert_eq!(
            split_command(r#"python3 "my engine.py" --x='a b' c\ d"#).unwrap(),
            words(&["python3", "my engine.py", "--x=a b", "c d"])
        );
        assert_eq!(split_command(r#"a "" b"#).unwrap(), words(&["a", "", "b"]));
        assert!(split_command("  ").is_err());
        assert!(split_command("a 'b").is_err());
    }

    #[test]
    fn clocks() {
        assert_eq!(
            TimeControl::parse_clock("60+0.5").unwrap(),
            TimeControl::Clock {
                base: Duration::from_secs(60),
                inc: Duration::from_millis(500)
            }
        );
        assert_eq!(
            TimeControl::parse_clock("1:30").unwrap(),
            TimeControl::Clock {
                base: Duration::from_secs(90),
                inc: Duration::ZERO
            }
        );
        assert!(TimeControl::parse_clock("x+1").is_err());
        assert!(TimeControl::parse_clock("0+0").is_err());
        let tc = TimeControl::parse_clock("10+0.1").unwrap();
        assert_eq!(
            tc.level(Duration::from_millis(9_512)).to_string(),
            "level time=9.512 inc=0.1"
        );
        assert_eq!(tc.dxp_minutes(), (1, 0));
        assert_eq!(
            TimeControl::MoveTime(Duration::from_secs(2)).dxp_minutes(),
            (2, 50)
        );
        assert_eq!(
            TimeControl::Depth(8).level(Duration::ZERO).to_string(),
            "level depth=8"
        );
    }
}
