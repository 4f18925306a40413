//! A parallel map over a stream that keeps the input order, in bounded
//! memory: items are produced on one thread, worked on by several, and
//! consumed on the calling thread in the order they were produced.
//!
//! Memory is bounded by a window: the producer waits while [`Limits::items`]
//! items or [`Limits::bytes`] bytes (as the producer counts them) are in
//! flight, that is produced but not yet consumed. One item larger than the
//! byte limit still passes when nothing else is in flight.

use std::collections::BTreeMap;
use std::sync::{mpsc, Condvar, Mutex};

/// The window of items in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// At most this many items in flight.
    pub items: usize,
    /// At most this many bytes in flight (as the producer counts them).
    pub bytes: usize,
}

#[derive(Debug, Default)]
struct Held {
    items: usize,
    bytes: usize,
    /// The consumer has stopped: the producer no longer waits.
    closed: bool,
}

/// The window shared by the producer and the consumer.
#[derive(Debug)]
struct Window {
    limits: Limits,
    held: Mutex<Held>,
    freed: Condvar,
}

impl Window {
    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn acquire(&self, cost: usize) {
        let mut h = self.lock();
        while !h.closed
            && h.items > 0
            && (h.items >= self.limits.items || h.bytes + cost > self.limits.bytes)
        {
            h = self.freed.wait(h).unwrap_or_else(|e| e.into_inner());
        }
        h.items += 1;
        h.bytes += cost;
    }

    fn release(&self, cost: usize) {
        let mut h = self.lock();
        h.items = h.items.saturating_sub(1);
        h.bytes = h.bytes.saturating_sub(cost);
        self.freed.notify_all();
    }

    fn close(&self) {
        self.lock().closed = true;
        self.freed.notify_all();
    }
}

/// Run `produce` on a thread of its own; each item it passes to its
/// callback, with its cost in bytes, is given to `work` on one of `workers`
/// threads, and `consume` gets the answers on the calling thread in the
/// order the items were produced. Returns what `produce` returns.
///
/// With `workers` at most 1 everything runs on the calling thread, one item
/// at a time. A panic in any of the closures is passed on to the caller.
pub fn map_ordered<T, U, R>(
    workers: usize,
    limits: Limits,
    produce: impl FnOnce(&mut dyn FnMut(T, usize)) -> R + Send,
    work: impl Fn(T) -> U + Sync,
    mut consume: impl FnMut(U),
) -> R
where
    T: Send,
    U: Send,
    R: Send,
{
    if workers <= 1 {
        return produce(&mut |t, _| consume(work(t)));
    }
    let window = Window {
        limits,
        held: Mutex::new(Held::default()),
        freed: Condvar::new(),
    };
    let (job_tx, job_rx) = mpsc::channel::<(u64, T, usize)>();
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = mpsc::channel::<(u64, U, usize)>();
    std::thread::scope(|s| {
        let (window, job_rx, work) = (&window, &job_rx, &work);
        let producer = s.spawn(move || {
            let mut seq = 0u64;
            produce(&mut |t, cost| {
                window.acquire(cost);
                // The workers outlive the producer: a send cannot fail
                // unless one panicked, and that panic is passed on.
                let _ = job_tx.send((seq, t, cost));
                seq += 1;
            })
        });
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            s.spawn(move || loop {
                let job = job_rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok((seq, t, cost)) = job else { break };
                if done_tx.send((seq, work(t), cost)).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        let mut pending = BTreeMap::new();
        let mut next = 0u64;
        for (seq, u, cost) in done_rx.iter() {
            pending.insert(seq, (u, cost));
            while let Some((u, cost)) = pending.remove(&next) {
                consume(u);
                window.release(cost);
                next += 1;
            }
        }
        window.close();
        match producer.join() {
            Ok(r) => r,
            Err(p) => std::panic::resume_unwind(p),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(workers: usize, limits: Limits, n: u64) -> (Vec<u64>, usize) {
        let mut got = Vec::new();
        let produced = map_ordered(
            workers,
            limits,
            |send| {
                for i in 0..n {
                    send(i, 10);
                }
                n as usize
            },
            |i: u64| {
                // Uneven work, so that answers arrive out of order.
                if i % 7 == 0 {
                    std::thread::yield_now();
                }
                i * i
            },
            |sq| got.push(sq),
        );
        (got, produced)
    }

    #[test]
    fn answers_come_in_input_order_on_several_workers() {
        let limits = Limits {
            items: 8,
            bytes: 1_000,
        };
        let (got, produced) = squares(3, limits, 5_000);
        assert_eq!(produced, 5_000);
        let want: Vec<u64> = (0..5_000).map(|i| i * i).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn one_worker_runs_in_line() {
        let limits = Limits { items: 1, bytes: 1 };
        let (got, _) = squares(1, limits, 10);
        assert_eq!(got, vec![0, 1, 4, 9, 16, 25, 36, 49, 64, 81]);
    }

    #[test]
    fn the_window_bounds_items_in_flight() {
        let limits = Limits {
            items: 4,
            bytes: 1 << 20,
        };
        let in_flight = std::sync::atomic::AtomicUsize::new(0);
        let max_seen = std::sync::atomic::AtomicUsize::new(0);
        use std::sync::atomic::Ordering::SeqCst;
        map_ordered(
            2,
            limits,
            |send| {
                for i in 0..2_000u32 {
                    let now = in_flight.fetch_add(1, SeqCst) + 1;
                    max_seen.fetch_max(now, SeqCst);
                    send(i, 1);
                }
            },
            |i| i,
            |_| {
                in_flight.fetch_sub(1, SeqCst);
            },
        );
        // Counted before the producer waits for room: one more than the
        // window at most.
        assert!(max_seen.load(SeqCst) <= 5, "{}", max_seen.load(SeqCst));
        assert_eq!(in_flight.load(SeqCst), 0);
    }

    #[test]
    fn an_item_larger_than_the_byte_limit_still_passes() {
        let limits = Limits { items: 4, bytes: 5 };
        let mut got = Vec::new();
        map_ordered(
            2,
            limits,
            |send| {
                send(1u8, 100);
                send(2u8, 100);
            },
            |i| i,
            |i| got.push(i),
        );
        assert_eq!(got, vec![1, 2]);
    }
}
