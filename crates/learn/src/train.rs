//! The trainer: fits pattern weights to self-play records by logistic regression.
//!
//! Each quiet position (no capture for either side) of the training games gives a target, White's
//! expected score: the game's result, optionally blended with the search's score turned into a
//! probability by the same logistic curve. The model is the engine's own pattern evaluation in
//! real numbers: per feature a middle-game and an endgame weight, blended by the number of pieces,
//! divided in drawish material as the engine divides it, then `sigmoid(eval / K)`. The loss is the
//! cross-entropy between that and the target, minimised by Adam over shuffled mini-batches, each
//! split over the threads, with L2 regularisation of the sparse weights (windows and king squares)
//! applied as decoupled weight decay (AdamW), since Adam would turn an L2 gradient into a full
//! step towards zero for every weight absent from a batch. Whole games
//! are held out (by a hash of their file and number) and their loss is printed every epoch.
//!
//! `K`, the curve's scale in centi-men, is fitted to the search scores and results of the data
//! unless given, so that the learned weights come out in the units of the evaluation that played
//! the games, the units the search's margins are set in.

use crate::record::{self, Record};
use crate::rng::Rng;
use anyhow::{bail, Result};
use kroon_rules::Variant;
use kroon_search::eval::pattern::{self, FeatureSink, Layout};
use kroon_search::eval::weights::{drawish_divisor, MAX_CENTI_MEN};
use kroon_search::eval::{hand, Weights};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Everything a training run takes.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Self-play files (all of one variant).
    pub data: Vec<PathBuf>,
    /// Passes over the training positions.
    pub epochs: u32,
    /// Positions per step.
    pub batch: usize,
    /// Adam's step size, in centi-men, for the first epoch...
    pub lr: f32,
    /// ... multiplied by this after each epoch.
    pub lr_decay: f32,
    /// L2 regularisation of the sparse weights: each step shrinks them by `lr * l2` of their value.
    pub l2: f32,
    /// The target's share of the game result; the rest is the search score's (1: the result only).
    pub lambda: f32,
    /// Share of the games held out to measure the fit.
    pub holdout: f32,
    /// The logistic scale in centi-men; fitted to the data when `None`.
    pub k: Option<f32>,
    /// Threads.
    pub threads: usize,
    /// Seed of the shuffles.
    pub seed: u64,
    /// Weights to start from (default: a man 100, a king 300, everything else 0).
    pub init: Option<Weights>,
    /// Positions before this ply of their game are left out (the random opening plies).
    pub min_ply: u16,
    /// Train the large layout (4x6 windows beside the 4x4 ones; 10x10 only).
    pub large: bool,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            data: Vec::new(),
            epochs: 20,
            batch: 16_384,
            lr: 1.0,
            lr_decay: 0.85,
            l2: 1e-4,
            lambda: 1.0,
            holdout: 0.05,
            k: None,
            threads: 1,
            seed: 1,
            init: None,
            min_ply: 0,
            large: false,
        }
    }
}

/// One epoch's figures.
#[derive(Clone, Debug)]
pub struct Epoch {
    /// 1-based.
    pub epoch: u32,
    /// Mean loss over the training positions during the epoch.
    pub train_loss: f64,
    /// Loss on the held-out games after it.
    pub holdout_loss: f64,
    /// Step size used.
    pub lr: f32,
    /// Time for the epoch.
    pub elapsed: Duration,
}

/// What the data looked like and what came out.
#[derive(Clone, Debug)]
pub struct Report {
    /// The data's variant.
    pub variant: Variant,
    /// Records read.
    pub records: usize,
    /// Distinct positions among the records (pieces and side to move).
    pub distinct: usize,
    /// Quiet positions used for training.
    pub train: usize,
    /// Quiet positions held out.
    pub holdout: usize,
    /// The logistic scale used.
    pub k: f32,
    /// Held-out loss of the hand evaluation, and of the targets themselves (the floor).
    pub hand_loss: f64,
    /// Held-out loss of a constant prediction (the mean target): the ceiling.
    pub constant_loss: f64,
    /// Held-out loss of the written (quantised) weights, evaluated by the engine's own code.
    pub written_loss: f64,
    /// Held-out loss of the starting weights (`init`), the same way.
    pub init_loss: Option<f64>,
    /// The trained layout's features.
    pub features: usize,
    /// Time to read the data and build the features.
    pub load_time: Duration,
}

/// The training positions in feature form.
struct Data {
    /// Per position: the range of its features in `index`/`value`.
    start: Vec<u32>,
    index: Vec<u32>,
    value: Vec<i16>,
    /// Middle-game share of the blend.
    mg: Vec<f32>,
    /// Divisors for a positive and a negative score.
    div: Vec<[u8; 2]>,
    target: Vec<f32>,
}

impl Data {
    fn new() -> Data {
        Data {
            start: vec![0],
            index: Vec::new(),
            value: Vec::new(),
            mg: Vec::new(),
            div: Vec::new(),
            target: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.target.len()
    }

    fn append(&mut self, other: Data) {
        let base = *self.start.last().unwrap_or(&0);
        self.start
            .extend(other.start.iter().skip(1).map(|s| s + base));
        self.index.extend(other.index);
        self.value.extend(other.value);
        self.mg.extend(other.mg);
        self.div.extend(other.div);
        self.target.extend(other.target);
    }

    fn features(&self, i: usize) -> impl Iterator<Item = (usize, f32)> + '_ {
        let (a, b) = (self.start[i] as usize, self.start[i + 1] as usize);
        self.index[a..b]
            .iter()
            .zip(&self.value[a..b])
            .map(|(&f, &v)| (f as usize, f32::from(v)))
    }
}

struct Push<'a>(&'a mut Data);
impl FeatureSink for Push<'_> {
    fn add(&mut self, feature: usize, value: i32) {
        self.0.index.push(feature as u32);
        self.0.value.push(value.clamp(-32767, 32767) as i16);
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Cross-entropy of a prediction against a target, kept finite.
fn cross_entropy(pred: f64, target: f64) -> f64 {
    let p = pred.clamp(1e-9, 1.0 - 1e-9);
    -(target * p.ln() + (1.0 - target) * (1.0 - p).ln())
}

/// White's search score of a record.
fn white_score(r: &Record) -> f64 {
    let s = f64::from(r.score);
    if r.turn() == kroon_rules::Colour::White {
        s
    } else {
        -s
    }
}

/// The scale that makes `sigmoid(score / K)` best predict the results (golden-section search).
fn fit_k(records: &[&Record]) -> f32 {
    let usable: Vec<(f64, f64)> = records
        .iter()
        .filter(|r| !kroon_search::score::is_decisive(i32::from(r.score)))
        .map(|r| (white_score(r), f64::from(r.white_points())))
        .collect();
    let loss = |k: f64| -> f64 {
        usable
            .iter()
            .map(|&(s, t)| cross_entropy(sigmoid(s / k), t))
            .sum::<f64>()
    };
    let (mut a, mut b) = (10f64, 2000f64);
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let c = b - phi * (b - a);
        let d = a + phi * (b - a);
        if loss(c) < loss(d) {
            b = d;
        } else {
            a = c;
        }
    }
    ((a + b) / 2.0) as f32
}

/// The model's prediction for position `i`, and the derivative of the loss by the blended
/// evaluation (before the division), for weights `w` (each feature's middle-game weight, then its
/// endgame weight beside it, so that one cache line serves both).
fn predict(data: &Data, i: usize, w: &[f32], k: f32) -> (f64, f64) {
    let p = data.mg[i];
    let mut raw = 0f32;
    for (f, v) in data.features(i) {
        raw += v * (p * w[2 * f] + (1.0 - p) * w[2 * f + 1]);
    }
    let [pos, neg] = data.div[i];
    let div = if raw > 0.0 {
        f32::from(pos)
    } else if raw < 0.0 {
        f32::from(neg)
    } else {
        1.0
    };
    let pred = sigmoid(f64::from(raw / div / k));
    (
        pred,
        (pred - f64::from(data.target[i])) / f64::from(k * div),
    )
}

/// Mean loss over `indices`, on `threads` threads.
fn mean_loss(data: &Data, indices: &[usize], w: &[f32], k: f32, threads: usize) -> f64 {
    if indices.is_empty() {
        return 0.0;
    }
    let chunk = indices.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|s| {
        let parts: Vec<_> = indices
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|&i| {
                            cross_entropy(predict(data, i, w, k).0, f64::from(data.target[i]))
                        })
                        .sum::<f64>()
                })
            })
            .collect();
        parts
            .into_iter()
            .map(|h| h.join().unwrap_or(f64::NAN))
            .sum()
    });
    total / indices.len() as f64
}

/// The quiet records of the data files and which of them are held out.
struct Loaded {
    variant: Variant,
    /// Records read, quiet or not.
    records: usize,
    /// Distinct positions among them.
    distinct: usize,
    kept: Vec<Record>,
    held: Vec<bool>,
}

fn load(settings: &Settings) -> Result<Loaded> {
    if settings.data.is_empty() {
        bail!("no self-play files given");
    }
    let mut variant = None;
    let mut kept = Vec::new();
    let mut held = Vec::new();
    let mut records = 0;
    // A key per record's position, to count how many are distinct (8 bytes each, sorted at the
    // end: far less than a hash set of the records).
    let mut keys: Vec<u64> = Vec::new();
    for (file_no, path) in settings.data.iter().enumerate() {
        let (v, mut rs) = record::read_all(path, variant)?;
        variant = Some(v);
        // Self-play threads finish games in any order; sorted, the same games train the same.
        rs.sort_by_key(|r| (r.game, r.ply));
        records += rs.len();
        keys.extend(rs.iter().map(position_key));
        for r in rs {
            if !r.is_quiet() || r.ply < settings.min_ply {
                continue;
            }
            let h = kroon_rules::hash::fnv1a(
                &[
                    (file_no as u64).to_le_bytes(),
                    u64::from(r.game).to_le_bytes(),
                ]
                .concat(),
            );
            held.push(((h >> 11) as f64 / (1u64 << 53) as f64) < f64::from(settings.holdout));
            kept.push(r);
        }
    }
    let variant = variant.unwrap_or_default();
    if kept.is_empty() {
        bail!("the files hold no quiet positions to train on");
    }
    keys.sort_unstable();
    keys.dedup();
    Ok(Loaded {
        variant,
        records,
        distinct: keys.len(),
        kept,
        held,
    })
}

/// A 64-bit key of a record's position: its pieces, kings and side to move (two positions
/// differing only in the game they come from, their ply or their score are one position).
fn position_key(r: &Record) -> u64 {
    let black = u64::from(r.flags.has(crate::record::Flags::BLACK_TO_MOVE));
    let mut bytes = [0u8; 32];
    for (i, w) in [r.white, r.black, r.kings, black].iter().enumerate() {
        bytes[8 * i..8 * i + 8].copy_from_slice(&w.to_le_bytes());
    }
    kroon_rules::hash::fnv1a(&bytes)
}

/// Builds the features and targets of `records`, on `threads` threads.
fn featurise(
    layout: &Layout,
    variant: Variant,
    records: &[Record],
    k: f32,
    lambda: f32,
    threads: usize,
) -> Data {
    let full = layout.full_stage() as f32;
    let chunk = records.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<Data> = std::thread::scope(|s| {
        let handles: Vec<_> = records
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut d = Data::new();
                    for r in part {
                        let pos = r.position(variant);
                        layout.visit(&pos, &mut Push(&mut d));
                        d.start.push(d.index.len() as u32);
                        d.mg.push(layout.stage(&pos) as f32 / full);
                        d.div.push([
                            drawish_divisor(&pos, 1) as u8,
                            drawish_divisor(&pos, -1) as u8,
                        ]);
                        let search = sigmoid(white_score(r) / f64::from(k)) as f32;
                        d.target
                            .push(lambda * r.white_points() + (1.0 - lambda) * search);
                    }
                    d
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Data::new()))
            .collect()
    });
    let mut data = Data::new();
    for p in parts {
        data.append(p);
    }
    data
}

/// Trains weights on the settings' data; `on_epoch` sees each epoch's figures.
///
/// # Errors
/// Unreadable or mixed-variant files, no quiet positions, or starting weights of another variant.
pub fn train(settings: &Settings, mut on_epoch: impl FnMut(&Epoch)) -> Result<(Weights, Report)> {
    let started = Instant::now();
    let Loaded {
        variant,
        records,
        distinct,
        kept,
        held,
    } = load(settings)?;
    let layout = if settings.large {
        match Layout::large(variant) {
            Some(l) => l,
            None => bail!("{variant} has no large layout (10x10 boards only)"),
        }
    } else {
        Layout::of(variant)
    };
    let n = layout.features();
    let threads = settings.threads.max(1);
    let train_refs: Vec<&Record> = kept
        .iter()
        .zip(&held)
        .filter(|(_, &h)| !h)
        .map(|(r, _)| r)
        .collect();
    let k = settings.k.unwrap_or_else(|| fit_k(&train_refs));
    let data = featurise(layout, variant, &kept, k, settings.lambda, threads);
    let (train_idx, hold_idx): (Vec<usize>, Vec<usize>) = (0..data.len()).partition(|&i| !held[i]);
    if train_idx.is_empty() {
        bail!("every game was held out: lower --holdout or give more games");
    }
    let load_time = started.elapsed();

    // Baselines on the held-out set: the hand evaluation, and the mean target.
    let hand_loss = hold_idx
        .iter()
        .map(|&i| {
            let pos = kept[i].position(variant);
            let e = f64::from(hand::evaluate(&pos));
            let white = if pos.turn() == kroon_rules::Colour::White {
                e
            } else {
                -e
            };
            cross_entropy(sigmoid(white / f64::from(k)), f64::from(data.target[i]))
        })
        .sum::<f64>()
        / hold_idx.len().max(1) as f64;
    // The loss of weights evaluated by the engine's integer evaluation, on the held-out set.
    let engine_loss = |weights: &Weights| {
        hold_idx
            .iter()
            .map(|&i| {
                let pos = kept[i].position(variant);
                let e = f64::from(weights.evaluate(&pos));
                let white = if pos.turn() == kroon_rules::Colour::White {
                    e
                } else {
                    -e
                };
                cross_entropy(sigmoid(white / f64::from(k)), f64::from(data.target[i]))
            })
            .sum::<f64>()
            / hold_idx.len().max(1) as f64
    };
    let mean_target = train_idx
        .iter()
        .map(|&i| f64::from(data.target[i]))
        .sum::<f64>()
        / train_idx.len() as f64;
    let constant_loss = hold_idx
        .iter()
        .map(|&i| cross_entropy(mean_target, f64::from(data.target[i])))
        .sum::<f64>()
        / hold_idx.len().max(1) as f64;

    let init_loss = settings.init.as_ref().map(&engine_loss);
    let mut w = vec![0f32; 2 * n];
    match &settings.init {
        Some(init) => {
            if init.variant() != variant {
                bail!(
                    "the starting weights are for {}, the data for {variant}",
                    init.variant()
                );
            }
            if !layout.extends(init.layout()) {
                bail!(
                    "the starting weights' layout ({} features) is not part of the trained one \
                     ({n} features)",
                    init.layout().features()
                );
            }
            // The features they share have the same indices; the rest start at zero.
            for f in 0..init.layout().features() {
                let (mg, eg) = init.centi_men(f);
                w[2 * f] = mg;
                w[2 * f + 1] = eg;
            }
        }
        None => {
            for (f, value) in [
                (pattern::MEN, 100.0),
                (pattern::FIRST_KING, 300.0),
                (pattern::EXTRA_KINGS, 300.0),
            ] {
                w[2 * f] = value;
                w[2 * f + 1] = value;
            }
        }
    }
    let sparse: Vec<bool> = (0..2 * n).map(|i| layout.is_sparse(i / 2)).collect();
    let mut m = vec![0f32; 2 * n];
    let mut v = vec![0f32; 2 * n];
    let mut grads: Vec<Vec<f32>> = vec![vec![0f32; 2 * n]; threads];
    // The features each thread touched in the batch (its gradient is zero elsewhere).
    let mut touched: Vec<Vec<u32>> = vec![Vec::new(); threads];
    // The features whose weights a step can change: nonzero at the start, or touched since. The
    // others (most of the large layout's) stay zero, and a step skips them rather than sweeping
    // millions of zeros.
    let mut is_active: Vec<bool> = w.chunks_exact(2).map(|c| c != [0.0, 0.0]).collect();
    let mut active: Vec<u32> = (0..n as u32).filter(|&f| is_active[f as usize]).collect();
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut step = 0i32;
    let mut lr = settings.lr;
    let mut order = train_idx.clone();
    let mut rng = Rng::new(settings.seed);
    for epoch in 1..=settings.epochs {
        let t0 = Instant::now();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut epoch_loss = 0f64;
        for batch in order.chunks(settings.batch.max(1)) {
            let chunk = batch.len().div_ceil(threads);
            let wr = &w;
            let data_r = &data;
            let losses: Vec<f64> = std::thread::scope(|s| {
                let handles: Vec<_> = batch
                    .chunks(chunk)
                    .zip(grads.iter_mut().zip(touched.iter_mut()))
                    .map(|(part, (g, touched))| {
                        s.spawn(move || {
                            touched.clear();
                            let mut loss = 0f64;
                            for &i in part {
                                let (pred, d) = predict(data_r, i, wr, k);
                                loss += cross_entropy(pred, f64::from(data_r.target[i]));
                                let p = data_r.mg[i];
                                let d = d as f32;
                                for (f, val) in data_r.features(i) {
                                    touched.push(f as u32);
                                    g[2 * f] += d * val * p;
                                    g[2 * f + 1] += d * val * (1.0 - p);
                                }
                            }
                            loss
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or(f64::NAN))
                    .collect()
            });
            epoch_loss += losses.iter().sum::<f64>();
            let used = batch.len().div_ceil(chunk);
            let (first, rest) = grads.split_at_mut(1);
            for (g, touched) in rest
                .iter_mut()
                .zip(&touched[1..])
                .take(used.saturating_sub(1))
            {
                for &f in touched {
                    for j in [2 * f as usize, 2 * f as usize + 1] {
                        first[0][j] += g[j];
                        g[j] = 0.0;
                    }
                }
            }
            for &f in touched.iter().take(used).flatten() {
                if !is_active[f as usize] {
                    is_active[f as usize] = true;
                    active.push(f);
                }
            }
            step += 1;
            let scale = 1.0 / batch.len() as f32;
            let c1 = 1.0 - b1.powi(step);
            let c2 = 1.0 - b2.powi(step);
            for j in active
                .iter()
                .flat_map(|&f| [2 * f as usize, 2 * f as usize + 1])
            {
                let g = first[0][j] * scale;
                first[0][j] = 0.0;
                if sparse[j] {
                    // Decoupled from the gradient (AdamW): Adam would scale an L2 gradient up to
                    // a full step for every weight absent from the batch.
                    w[j] -= lr * settings.l2 * w[j];
                }
                if g == 0.0 && m[j] == 0.0 {
                    continue;
                }
                m[j] = b1 * m[j] + (1.0 - b1) * g;
                v[j] = b2 * v[j] + (1.0 - b2) * g * g;
                w[j] -= lr * (m[j] / c1) / ((v[j] / c2).sqrt() + eps);
                // Kept within what the file can hold, so that the fit is the one written.
                w[j] = w[j].clamp(-MAX_CENTI_MEN, MAX_CENTI_MEN);
            }
        }
        let holdout_loss = mean_loss(&data, &hold_idx, &w, k, threads);
        on_epoch(&Epoch {
            epoch,
            train_loss: epoch_loss / order.len() as f64,
            holdout_loss,
            lr,
            elapsed: t0.elapsed(),
        });
        lr *= settings.lr_decay;
    }
    let (mg, eg): (Vec<f32>, Vec<f32>) = w.chunks_exact(2).map(|c| (c[0], c[1])).unzip();
    let weights = Weights::from_centi_men_in(layout, variant, &mg, &eg);
    // The written weights, through the engine's integer evaluation.
    let written_loss = engine_loss(&weights);
    Ok((
        weights,
        Report {
            variant,
            records,
            distinct,
            train: train_idx.len(),
            holdout: hold_idx.len(),
            k,
            hand_loss,
            constant_loss,
            written_loss,
            init_loss,
            features: n,
            load_time,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Flags, RECORD_SIZE};
    use kroon_rules::{Bitboard, Colour, GameResult, Position};
    use std::io::Write;

    /// A file of random quiet positions whose result follows a known rule: the side with more
    /// men wins.
    fn synthetic(path: &std::path::Path, games: u32) {
        let v = Variant::International;
        let g = v.geometry();
        let squares: Vec<_> = g.mask.into_iter().collect();
        let mut rng = Rng::new(42);
        let mut f = std::fs::File::create(path).unwrap();
        f.write_all(&record::header(v, 0)).unwrap();
        let mut game = 0;
        while game < games {
            let (nw, nb) = (1 + rng.below(12), 1 + rng.below(12));
            if nw == nb {
                continue;
            }
            let mut sides = [Bitboard::EMPTY; 2];
            for (s, n) in [nw, nb].into_iter().enumerate() {
                let mut placed = 0;
                while placed < n {
                    let sq = squares[rng.below(squares.len() as u64) as usize];
                    // Men stay off both crowning rows.
                    if (g.top_row | g.bottom_row | sides[0] | sides[1]).has(sq) {
                        continue;
                    }
                    sides[s] = sides[s].with(sq);
                    placed += 1;
                }
            }
            let [white, black] = sides;
            let turn = if rng.below(2) == 0 {
                Colour::White
            } else {
                Colour::Black
            };
            let pos = Position::from_parts(v, white, black, Bitboard::EMPTY, turn);
            let result = if nw > nb {
                GameResult::WhiteWins
            } else {
                GameResult::BlackWins
            };
            let mut r = Record::new(&pos, 0, 10, game, result);
            if !r.is_quiet() {
                continue;
            }
            r.flags = r.flags.with(Flags::LAST);
            let bytes: [u8; RECORD_SIZE] = r.to_bytes();
            f.write_all(&bytes).unwrap();
            game += 1;
        }
    }

    #[test]
    fn a_known_rule_is_fitted_to_near_zero_loss() {
        let dir = std::env::temp_dir().join(format!("kroon-train-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rule.bin");
        synthetic(&path, 3000);
        let settings = Settings {
            data: vec![path],
            epochs: 40,
            batch: 256,
            lr: 8.0,
            lr_decay: 1.0,
            l2: 0.0,
            holdout: 0.1,
            k: Some(50.0),
            threads: 2,
            ..Settings::default()
        };
        let mut losses = Vec::new();
        let (w, report) = train(&settings, |e| losses.push(e.holdout_loss)).unwrap();
        assert_eq!(report.variant, Variant::International);
        assert!(report.holdout > 100 && report.train > 2000, "{report:?}");
        let last = *losses.last().unwrap();
        assert!(last < 0.05, "held-out loss {last} (by epoch: {losses:?})");
        assert!(last < report.constant_loss / 10.0);
        // The rule is material: a man is now worth far more than the logistic scale.
        assert!(
            w.centi_men(pattern::MEN).0 > 150.0,
            "{:?}",
            w.centi_men(pattern::MEN)
        );
        assert!(report.written_loss < 0.06, "{report:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_read_twice_counts_its_positions_once() {
        let dir = std::env::temp_dir().join(format!("kroon-train-distinct-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rule.bin");
        synthetic(&path, 500);
        let settings = |data: Vec<PathBuf>| Settings {
            data,
            epochs: 1,
            k: Some(50.0),
            ..Settings::default()
        };
        let (_, once) = train(&settings(vec![path.clone()]), |_| {}).unwrap();
        let (_, twice) = train(&settings(vec![path.clone(), path]), |_| {}).unwrap();
        assert!(
            once.distinct > 400 && once.distinct <= once.records,
            "{once:?}"
        );
        assert_eq!(twice.records, 2 * once.records);
        assert_eq!(twice.distinct, once.distinct);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn starting_the_large_layout_from_4x4_weights_keeps_their_evaluation() {
        let dir = std::env::temp_dir().join(format!("kroon-train-init-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rule.bin");
        synthetic(&path, 200);
        let v = Variant::International;
        let old = kroon_search::eval::embedded_for(v).unwrap();
        let settings = Settings {
            data: vec![path],
            epochs: 0,
            k: Some(100.0),
            init: Some((*old).clone()),
            large: true,
            ..Settings::default()
        };
        let (w, report) = train(&settings, |_| {}).unwrap();
        assert!(w.layout().is_large());
        assert_eq!(report.features, w.layout().features());
        // Untrained, the new windows are zero and every position scores as before.
        assert_eq!(report.init_loss, Some(report.written_loss));
        let mut rng = Rng::new(9);
        let mut pos = Position::initial(v);
        for _ in 0..100 {
            assert_eq!(
                w.evaluate(&pos),
                old.evaluate(&pos),
                "{}",
                kroon_rules::write_fen(&pos)
            );
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.play(&moves[rng.below(moves.len() as u64) as usize]);
        }
        // Large weights cannot start 4x4 ones.
        let back = Settings {
            init: Some(w),
            large: false,
            ..settings
        };
        assert!(train(&back, |_| {}).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_scale_fits_scores_that_predict_results() {
        // Scores whose results follow sigmoid(score / 200) exactly, in expectation.
        let mut rng = Rng::new(5);
        let pos = Position::initial(Variant::International);
        let recs: Vec<Record> = (0..20_000)
            .map(|g| {
                let s = rng.below(1200) as i32 - 600;
                let win = rng.unit() < sigmoid(f64::from(s) / 200.0);
                let result = if win {
                    GameResult::WhiteWins
                } else {
                    GameResult::BlackWins
                };
                Record::new(&pos, s, 10, g, result)
            })
            .collect();
        let refs: Vec<&Record> = recs.iter().collect();
        let k = fit_k(&refs);
        assert!((170.0..235.0).contains(&k), "{k}");
    }
}
