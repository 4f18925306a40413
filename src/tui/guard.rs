//! The consent guard: nothing answers a request the person has not seen.
//!
//! Every request screen (form, refusable, URL consent) ignores its keys
//! until it has been on screen, whole, for a grace period:
//! - the period starts at the first frame that showed the request whole
//!   (not the first attempt to draw: a "too small" frame does not count);
//! - a change of the screen size (a resize) starts it again, once the new
//!   size shows the request whole;
//! - a key that arrives during the period is dropped and starts the period
//!   again, so a burst of keys typed for the previous screen (Ctrl-S then
//!   Enters, 50 or 150 ms apart) never reaches this one: only a pause of
//!   the full period followed by a key counts.
//!
//! Keys that arrived before the first frame are read after it, so they fall
//! in the period and are dropped too. The caller keeps Ctrl-C (cancel, and
//! twice to quit) outside the guard.

use std::time::{Duration, Instant};

use ratatui::layout::Rect;

/// The guard state of one request screen.
#[derive(Debug, Clone)]
pub struct ConsentGuard {
    grace: Duration,
    /// The size of the last frame.
    area: Option<Rect>,
    /// Keys count from this instant on; None until a frame showed the
    /// request whole at the current size.
    until: Option<Instant>,
}

impl ConsentGuard {
    /// A guard with the given grace period; nothing counts until
    /// [`ConsentGuard::frame`] reports a whole frame.
    pub fn new(grace: Duration) -> Self {
        ConsentGuard {
            grace,
            area: None,
            until: None,
        }
    }

    /// Report a frame of size `area` drawn at `now`; `whole` says whether it
    /// showed the request whole. A new size, or a frame that was not whole,
    /// starts the guard again.
    pub fn frame(&mut self, area: Rect, whole: bool, now: Instant) {
        if self.area != Some(area) || !whole {
            self.area = Some(area);
            self.until = None;
        }
        if whole && self.until.is_none() {
            self.until = Some(now + self.grace);
        }
    }

    /// Whether a key read at `now` counts. A key during the grace period
    /// (or before any whole frame) does not, and restarts the period.
    pub fn admit(&mut self, now: Instant) -> bool {
        match self.until {
            Some(u) if now >= u => true,
            Some(_) => {
                self.until = Some(now + self.grace);
                false
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Duration = Duration::from_millis(300);

    fn ms(t0: Instant, n: u64) -> Instant {
        t0 + Duration::from_millis(n)
    }

    #[test]
    fn nothing_counts_before_a_whole_frame() {
        let t0 = Instant::now();
        let mut g = ConsentGuard::new(G);
        assert!(!g.admit(ms(t0, 5000)));
        g.frame(Rect::new(0, 0, 30, 8), false, ms(t0, 5000));
        assert!(!g.admit(ms(t0, 9000)));
        g.frame(Rect::new(0, 0, 30, 8), true, ms(t0, 9000));
        assert!(!g.admit(ms(t0, 9299)));
        // The dropped key restarted the period.
        assert!(!g.admit(ms(t0, 9500)));
        assert!(g.admit(ms(t0, 9800)));
    }

    #[test]
    fn a_burst_of_keys_is_dropped_whatever_its_pace() {
        for gap in [0u64, 50, 150, 250] {
            let t0 = Instant::now();
            let mut g = ConsentGuard::new(G);
            g.frame(Rect::new(0, 0, 80, 24), true, t0);
            for i in 1..=4 {
                assert!(!g.admit(ms(t0, i * gap)), "gap {gap} key {i}");
            }
            // After a pause of the full period, the next key counts.
            assert!(g.admit(ms(t0, 4 * gap + 300)), "gap {gap}");
        }
    }

    #[test]
    fn a_resize_restarts_the_period() {
        let t0 = Instant::now();
        let mut g = ConsentGuard::new(G);
        g.frame(Rect::new(0, 0, 80, 24), true, t0);
        g.frame(Rect::new(0, 0, 80, 24), true, ms(t0, 1000));
        assert!(g.admit(ms(t0, 1000)));
        g.frame(Rect::new(0, 0, 100, 30), true, ms(t0, 2000));
        assert!(!g.admit(ms(t0, 2010)));
        assert!(g.admit(ms(t0, 2400)));
    }
}
