//! Match statistics, pure: Elo from a score with a 95% error margin, pentanomial counts of game
//! pairs, and the sequential probability ratio test (GSPRT) that stops a match once it decides.
//!
//! The Elo model is the logistic one: a player `elo` points stronger scores
//! `1 / (1 + 10^(-elo/400))` on average.
//!
//! Error margins use the normal approximation. For W/D/L counts (trinomial) the variance is that of
//! one game's score; for pentanomial counts it is that of a pair's mean score, which is smaller
//! whenever the two games of an opening are correlated (the usual case: an opening that favours
//! one colour gives each engine one win).
//!
//! The SPRT is fishtest's GSPRT on pentanomial pairs with the logistic Elo model
//! (`LLR_logistic` in fishtest's `stat_util.py`, after Michel Van den Bergh's note "GSPRT
//! approximation"): with `x` a pair's mean score (0, ¼, ½, ¾ or 1), `N` pairs of mean `μ` and
//! variance `σ²`, and `s0`, `s1` the expected scores at `elo0`, `elo1`,
//!
//! ```text
//! LLR = N · (s1 − s0) · (2μ − s0 − s1) / (2σ²)
//! ```
//!
//! which is the log-likelihood ratio of two normal distributions with means `s1` and `s0` and the
//! observed variance. Empty cells count as 0.001 pairs, as fishtest does, so that the variance of
//! a short run is never zero. The test accepts H1 (`elo1`) when LLR ≥ ln((1−β)/α) and H0 (`elo0`)
//! when LLR ≤ ln(β/(1−α)).

use std::fmt;

/// The two-sided 95% quantile of the normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The expected score of a player `elo` points stronger than its opponent.
#[must_use]
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that gives score `s`; ±infinity at 1 and 0.
#[must_use]
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10() + 0.0 // + 0.0 turns -0.0 into 0.0
    }
}

/// An Elo difference and the half-width of its 95% interval (infinite when the score is 0 or 1,
/// or the interval reaches them).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Estimate {
    /// The Elo difference.
    pub elo: f64,
    /// Half the width of the 95% interval, in Elo.
    pub margin: f64,
}

impl Estimate {
    /// The estimate for mean score `s` whose standard error is `se`: the interval is
    /// `s ± 1.96·se` mapped to Elo, and the margin is half its width (as cutechess reports it).
    fn from_mean(s: f64, se: f64) -> Estimate {
        let lo = elo_from_score(s - Z95 * se);
        let hi = elo_from_score(s + Z95 * se);
        Estimate {
            elo: elo_from_score(s),
            margin: (hi - lo) / 2.0,
        }
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let num = |x: f64| {
            if x.is_finite() {
                format!("{x:+.1}")
            } else if x > 0.0 {
                "+inf".to_owned()
            } else {
                "-inf".to_owned()
            }
        };
        let margin = if self.margin.is_finite() {
            format!("{:.1}", self.margin)
        } else {
            "inf".to_owned()
        };
        write!(f, "{} ± {margin}", num(self.elo))
    }
}

/// Wins, draws and losses from one side's point of view.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Wdl {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Wdl {
    /// Games played.
    #[must_use]
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points: 1 a win, ½ a draw.
    #[must_use]
    pub fn points(&self) -> f64 {
        f64::from(self.wins) + f64::from(self.draws) / 2.0
    }

    /// The mean score per game, if any game was played.
    #[must_use]
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / f64::from(n))
    }

    /// The same counts from the other side.
    #[cfg(test)]
    #[must_use]
    pub fn flipped(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// Elo and its 95% margin from the per-game (trinomial) variance.
    #[must_use]
    pub fn elo(&self) -> Option<Estimate> {
        let s = self.score()?;
        let n = f64::from(self.games());
        let var = (f64::from(self.wins) * (1.0 - s).powi(2)
            + f64::from(self.draws) * (0.5 - s).powi(2)
            + f64::from(self.losses) * s.powi(2))
            / n;
        Some(Estimate::from_mean(s, (var / n).sqrt()))
    }
}

/// Pentanomial counts: how many game pairs (one opening played with both colours) ended with the
/// first side scoring 0, ½, 1, 1½ and 2 points.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Penta(pub [u32; 5]);

impl Penta {
    /// Counts a pair from the first side's points in half-points (0..=4).
    pub fn add(&mut self, half_points: usize) {
        debug_assert!(half_points <= 4);
        self.0[half_points.min(4)] += 1;
    }

    /// Pairs counted.
    #[must_use]
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }

    /// Mean and variance of a pair's mean score, from counts `c` (maybe regularized).
    fn moments(c: &[f64; 5]) -> (f64, f64, f64) {
        let n: f64 = c.iter().sum();
        let x = |i: usize| i as f64 / 4.0;
        let mu = (0..5).map(|i| x(i) * c[i]).sum::<f64>() / n;
        let var = (0..5).map(|i| (x(i) - mu).powi(2) * c[i]).sum::<f64>() / n;
        (n, mu, var)
    }

    /// Elo and its 95% margin from the variance of pair scores.
    #[must_use]
    pub fn elo(&self) -> Option<Estimate> {
        if self.pairs() == 0 {
            return None;
        }
        let (n, mu, var) = Penta::moments(&self.0.map(f64::from));
        Some(Estimate::from_mean(mu, (var / n).sqrt()))
    }
}

/// What an SPRT has concluded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Neither bound reached yet.
    Continue,
    /// The lower bound: the difference is `elo0` (or less).
    AcceptH0,
    /// The upper bound: the difference is `elo1` (or more).
    AcceptH1,
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Decision::Continue => "continue",
            Decision::AcceptH0 => "H0 accepted",
            Decision::AcceptH1 => "H1 accepted",
        })
    }
}

/// An SPRT of `elo0` against `elo1` (logistic Elo) with error rates `alpha` and `beta`.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

impl Sprt {
    /// Reads `elo0=0 elo1=5 alpha=0.05 beta=0.05` (any order; alpha and beta default to 0.05).
    ///
    /// # Errors
    /// A message naming the bad or missing part.
    pub fn parse(text: &str) -> Result<Sprt, String> {
        let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
        for part in text.split([' ', ',']).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("expected key=value, found `{part}`"))?;
            let x: f64 = value
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| format!("`{value}` is not a number"))?;
            match key {
                "elo0" => elo0 = Some(x),
                "elo1" => elo1 = Some(x),
                "alpha" => alpha = x,
                "beta" => beta = x,
                _ => return Err(format!("unknown SPRT parameter `{key}`")),
            }
        }
        let (Some(elo0), Some(elo1)) = (elo0, elo1) else {
            return Err("the SPRT needs elo0= and elo1=".into());
        };
        if elo0 >= elo1 {
            return Err(format!("elo0 ({elo0}) must be below elo1 ({elo1})"));
        }
        if !(alpha > 0.0 && alpha < 0.5 && beta > 0.0 && beta < 0.5) {
            return Err("alpha and beta must lie between 0 and 0.5".into());
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The bounds `(ln(β/(1−α)), ln((1−β)/α))`.
    #[must_use]
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of the pentanomial counts (see the module comment).
    #[must_use]
    pub fn llr(&self, penta: &Penta) -> f64 {
        if penta.pairs() == 0 {
            return 0.0;
        }
        let (s0, s1) = (expected_score(self.elo0), expected_score(self.elo1));
        let counts = penta.0.map(|c| f64::from(c).max(1e-3));
        let (n, mu, var) = Penta::moments(&counts);
        n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)
    }

    /// What the test concludes at `llr`.
    #[must_use]
    pub fn decide(&self, llr: f64) -> Decision {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Decision::AcceptH1
        } else if llr <= lower {
            Decision::AcceptH0
        } else {
            Decision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() <= eps
    }

    #[test]
    fn elo_and_score_are_inverse() {
        assert_eq!(elo_from_score(0.5), 0.0);
        // 0.75 = 1/(1+10^(-x/400))  =>  x = 400·log10(3) = 190.848...
        assert!(close(elo_from_score(0.75), 190.848_501_887, 1e-6));
        for elo in [-300.0, -35.0, 0.0, 5.0, 120.0] {
            assert!(close(elo_from_score(expected_score(elo)), elo, 1e-9));
        }
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn trinomial_margin_by_hand() {
        // W=50 D=30 L=20: s = (50 + 15)/100 = 0.65, Elo = -400·log10(1/0.65 - 1) = 107.538.
        // var = (50·0.35² + 30·0.15² + 20·0.65²)/100 = (6.125 + 0.675 + 8.45)/100 = 0.1525,
        // se = sqrt(0.1525/100) = 0.0390512; the interval 0.65 ± 1.96·se = [0.57346, 0.72654]
        // is [+51.42, +169.75] Elo, so the margin is (169.75 - 51.42)/2 = 59.16.
        let wdl = Wdl {
            wins: 50,
            draws: 30,
            losses: 20,
        };
        let e = wdl.elo().unwrap();
        assert!(close(e.elo, 107.538, 1e-3), "{e:?}");
        assert!(close(e.margin, 59.164, 1e-3), "{e:?}");
        assert!(close(wdl.flipped().elo().unwrap().elo, -e.elo, 1e-9));
        let even = Wdl {
            wins: 10,
            draws: 10,
            losses: 10,
        };
        assert_eq!(even.elo().unwrap().elo, 0.0);
        assert!(Wdl::default().elo().is_none());
        let all = Wdl {
            wins: 3,
            draws: 0,
            losses: 0,
        };
        let e = all.elo().unwrap();
        assert_eq!(e.elo, f64::INFINITY);
        assert_eq!(e.to_string(), "+inf ± inf");
    }

    #[test]
    fn pentanomial_mean_matches_the_game_score() {
        // Pairs scoring 0, 1, 1, 2 points: 4 of 8 points, Elo 0; pair scores 0, ½, ½, 1 have
        // variance (¼ + 0 + 0 + ¼)/4 = 1/8.
        let mut p = Penta::default();
        for half in [0, 2, 2, 4] {
            p.add(half);
        }
        assert_eq!(p, Penta([1, 0, 2, 0, 1]));
        let e = p.elo().unwrap();
        assert_eq!(e.elo, 0.0);
        // se = sqrt((1/8)/4) = 0.176777; 0.5 ± 0.34648 → Elo ±(400·log10(0.84648/0.15352)) = ±296.6.
        assert!(close(e.margin, 296.6, 0.1), "{e:?}");
    }

    #[test]
    fn sprt_llr_matches_a_hand_calculation() {
        // Pentanomial [LL, LD, DD+WL, WD, WW] = [5, 20, 40, 25, 10], N = 100 pairs.
        // Pair scores 0, .25, .5, .75, 1:
        //   μ  = (0·5 + .25·20 + .5·40 + .75·25 + 1·10)/100 = 53.75/100 = 0.5375
        //   E[x²] = (.0625·20 + .25·40 + .5625·25 + 1·10)/100 = 35.3125/100 = 0.353125
        //   σ² = 0.353125 − 0.5375² = 0.353125 − 0.28890625 = 0.06421875
        // elo0 = 0, elo1 = 5: s0 = 0.5, s1 = 1/(1 + 10^(−5/400)) = 1/(1 + 0.9716279) = 0.5071951
        //   LLR = 100 · (0.5071951 − 0.5) · (1.075 − 0.5 − 0.5071951) / (2 · 0.06421875)
        //       = 100 · 0.0071951 · 0.0678049 / 0.1284375 = 0.379844
        // No cell is empty, so the 0.001 floor changes nothing.
        // Bounds for α = β = 0.05: ln(0.05/0.95) = −2.944439, ln(0.95/0.05) = +2.944439.
        let sprt = Sprt::parse("elo0=0 elo1=5 alpha=0.05 beta=0.05").unwrap();
        let llr = sprt.llr(&Penta([5, 20, 40, 25, 10]));
        assert!(close(llr, 0.379_844, 1e-6), "{llr}");
        let (lo, hi) = sprt.bounds();
        assert!(close(lo, -2.944_439, 1e-6) && close(hi, 2.944_439, 1e-6));
        assert_eq!(sprt.decide(llr), Decision::Continue);
        // Ten times the data gives ten times the LLR (μ and σ² unchanged): 3.798 ≥ 2.944.
        let llr10 = sprt.llr(&Penta([50, 200, 400, 250, 100]));
        assert!(close(llr10, 3.798_438, 1e-5), "{llr10}");
        assert_eq!(sprt.decide(llr10), Decision::AcceptH1);
        // The mirror image (μ = 0.4625) pushes towards H0.
        let down = sprt.llr(&Penta([100, 250, 400, 200, 50]));
        assert!(down < lo);
        assert_eq!(sprt.decide(down), Decision::AcceptH0);
    }

    #[test]
    fn sprt_regularizes_empty_cells() {
        let sprt = Sprt::parse("elo0=0 elo1=10").unwrap();
        assert_eq!(sprt.llr(&Penta::default()), 0.0);
        // Only drawn pairs: the variance would be zero without the floor; with it the LLR is
        // finite and negative (μ = 0.5 lies below (s0 + s1)/2).
        let llr = sprt.llr(&Penta([0, 0, 7, 0, 0]));
        assert!(llr.is_finite() && llr < 0.0, "{llr}");
    }

    #[test]
    fn sprt_parse_errors() {
        assert!(Sprt::parse("elo0=5 elo1=0").is_err());
        assert!(Sprt::parse("elo0=0").is_err());
        assert!(Sprt::parse("elo0=0 elo1=5 gamma=1").is_err());
        assert!(Sprt::parse("elo0=0 elo1=5 alpha=0.7").is_err());
        assert!(Sprt::parse("elo0=x elo1=5").is_err());
        let s = Sprt::parse("elo1=5,elo0=-1").unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (-1.0, 5.0, 0.05, 0.05));
    }
}
