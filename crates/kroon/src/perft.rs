//! `kroon perft`: leaf counts, split over threads by the positions two plies down.

use kroon_rules::{movegen, perft, Duplicates, MoveList, Position};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Leaves `depth` plies below `pos`, counted on `threads` threads.
pub fn parallel(pos: &Position, depth: u32, dups: Duplicates, threads: usize) -> u64 {
    if threads <= 1 || depth < 3 {
        return perft(pos, depth, dups);
    }
    // Jobs are the positions two plies down: enough of them to keep every thread busy.
    let mut jobs = Vec::new();
    let mut list = MoveList::new();
    let mut inner = MoveList::new();
    movegen::generate_with(pos, &mut list, dups);
    for mv in &list {
        let child = pos.play(mv);
        movegen::generate_with(&child, &mut inner, dups);
        jobs.extend(inner.iter().map(|m| child.play(m)));
    }
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut n = 0;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { return n };
                        n += perft(job, depth - 2, dups);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("perft worker panicked"))
            .sum()
    })
}
