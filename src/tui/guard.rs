//! The consent guard: nothing answers a request the person has not seen.
//!
//! Every request screen (form, refusable, URL consent) ignores its keys
//! until it has been on screen, unchanged, for a grace period:
//! - the period starts at the first frame; a change of the screen size (a
//!   resize) or of whether the request fits (the "too small" message or the
//!   whole screen; for URL consent, the pinned block and the URL) starts it
//!   again, so after a resize from too small to big the guard counts from
//!   the first frame that shows the request whole, not from the first
//!   attempt to draw;
//! - a key that arrives during the period is dropped and starts the period
//!   again, so a burst of keys typed for the previous screen (Ctrl-S then
//!   Enters, 50 or 150 ms apart, or a held key) never reaches this one: only
//!   a pause of the full period followed by a key counts;
//! - a change of what the screen's keys do ([`ConsentGuard::restart`]: a
//!   question that asks to confirm a discard appears, the end of a long
//!   review or more of a URL comes on screen, so Enter, `y` or `o` now
//!   answers) starts it again too: a key typed with the one that made the
//!   change, or a held key's repeats, never answers what it brought up.
//!
//! Keys that arrived before the first frame are read after it, so they fall
//! in the period and are dropped too. The caller keeps Ctrl-C (cancel, and
//! twice to quit) outside the guard, and while the request does not fit it
//! takes no key but Esc (cancel).

use std::time::{Duration, Instant};

use ratatui::layout::Rect;

/// The guard state of one request screen.
#[derive(Debug, Clone)]
pub struct ConsentGuard {
    grace: Duration,
    /// The size of the last frame and whether it showed the request whole.
    last: Option<(Rect, bool)>,
    /// Keys count from this instant on; None before the first frame.
    until: Option<Instant>,
}

impl ConsentGuard {
    /// A guard with the given grace period; nothing counts until
    /// [`ConsentGuard::frame`] reports a frame.
    pub fn new(grace: Duration) -> Self {
        ConsentGuard {
            grace,
            last: None,
            until: None,
        }
    }

    /// Report a frame of size `area` drawn at `now`; `whole` says whether it
    /// showed the request whole. The first frame, a new size, or a change
    /// of `whole` starts the period again.
    pub fn frame(&mut self, area: Rect, whole: bool, now: Instant) {
        if self.last != Some((area, whole)) {
            self.last = Some((area, whole));
            self.until = Some(now + self.grace);
        }
    }

    /// What the screen's keys do changed at `now` (the frame that shows the
    /// change was just drawn): the period starts again, as it does for a
    /// resize. Before the first frame nothing counts anyway, and that
    /// stays so.
    pub fn restart(&mut self, now: Instant) {
        if self.until.is_some() {
            self.until = Some(now + self.grace);
        }
    }

    /// Whether a key read at `now` counts. A key during the period (or
    /// before any frame) does not, and starts the period again.
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
    fn the_period_restarts_when_the_request_comes_to_fit() {
        let t0 = Instant::now();
        let mut g = ConsentGuard::new(G);
        assert!(!g.admit(ms(t0, 5000)), "no frame yet");
        g.frame(Rect::new(0, 0, 30, 8), false, ms(t0, 5000));
        g.frame(Rect::new(0, 0, 30, 8), false, ms(t0, 8000));
        // (While it does not fit, the caller takes only Esc.)
        assert!(g.admit(ms(t0, 9000)));
        // The same size now showing the request whole: a new period.
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

    /// A question that now takes `y`, drawn at 1000 ms on a screen up for
    /// long: `y` 200 ms later is dropped (and restarts the period), and so
    /// is every repeat of a held key 33 ms apart; a key after a full pause
    /// counts.
    #[test]
    fn a_change_of_what_keys_do_restarts_the_period() {
        let t0 = Instant::now();
        let mut g = ConsentGuard::new(G);
        g.restart(ms(t0, 10));
        assert!(!g.admit(ms(t0, 5000)), "no frame yet: still nothing counts");
        g.frame(Rect::new(0, 0, 80, 24), true, t0);
        assert!(g.admit(ms(t0, 900)));
        g.restart(ms(t0, 1000));
        assert!(!g.admit(ms(t0, 1200)), "y 200 ms after the question");
        for i in 0..10 {
            assert!(!g.admit(ms(t0, 1233 + 33 * i)), "repeat {i}");
        }
        assert!(!g.admit(ms(t0, 1530 + 290)));
        assert!(g.admit(ms(t0, 1820 + 300)));
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
