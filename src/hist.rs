//! The distribution of per-cycle times: a fixed log-linear histogram (no
//! heap), so a run can show its tail (preemption, interrupts) next to the
//! mean instead of hiding it there.
//!
//! Buckets: values below 256 ns are exact; above, every power of two is split
//! into 128 equal buckets, so a bucket is at most 1/128 of its lower bound
//! wide and its midpoint is within 0.4% of any value in it. Values of 2^40 ns
//! (about 18 minutes) or more share one last bucket. Min and max are kept
//! exactly; a percentile is the midpoint of the bucket holding the
//! nearest-rank sample, clamped to [min, max] (the max when that bucket is
//! the last one).
//!
//! Recording is a leading-zero count, a shift and an add: it runs after the
//! cycle's closing clock read, outside the timed span, with no syscall.

/// Sub-bucket bits: 2^7 = 128 buckets per power of two.
pub const SUB_BITS: u32 = 7;
const SUB: usize = 1 << SUB_BITS;
/// Values below this are counted exactly, one bucket per nanosecond.
const LINEAR: u64 = 2 * SUB as u64;
/// Values of 2^MAX_EXP ns or more land in the last bucket.
pub const MAX_EXP: u32 = 40;
/// 256 exact buckets, 128 for each power of two from 2^8 to 2^39, one more.
pub const BUCKETS: usize = 2 * SUB + (MAX_EXP - SUB_BITS - 1) as usize * SUB + 1;

/// Counts of per-cycle nanoseconds.
#[derive(Clone)]
pub struct Histogram {
    counts: [u64; BUCKETS],
    n: u64,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: [0; BUCKETS],
            n: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

/// The bucket of `v`.
#[inline(always)]
fn index(v: u64) -> usize {
    if v < LINEAR {
        return v as usize;
    }
    let k = 63 - v.leading_zeros(); // 8..=63
    if k >= MAX_EXP {
        return BUCKETS - 1;
    }
    let mantissa = (v >> (k - SUB_BITS)) as usize; // SUB..2*SUB
    2 * SUB + (k - SUB_BITS - 1) as usize * SUB + (mantissa - SUB)
}

/// [lo, hi) of bucket `i` (the last one ends at u64::MAX).
fn bounds(i: usize) -> (u64, u64) {
    if i < 2 * SUB {
        return (i as u64, i as u64 + 1);
    }
    if i == BUCKETS - 1 {
        return (1 << MAX_EXP, u64::MAX);
    }
    let k = (i - 2 * SUB) / SUB + SUB_BITS as usize + 1;
    let mantissa = ((i - 2 * SUB) % SUB + SUB) as u64;
    let shift = k as u32 - SUB_BITS;
    (mantissa << shift, (mantissa + 1) << shift)
}

impl Histogram {
    #[inline(always)]
    pub fn record(&mut self, ns: u64) {
        self.counts[index(ns)] += 1;
        self.n += 1;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Moves `other`'s samples into these, leaving it empty. Only buckets
    /// between its min and max can hold any, so merging a round's cycles
    /// (once the round is known to have finished) touches few of them.
    pub fn absorb(&mut self, other: &mut Histogram) {
        if other.n == 0 {
            return;
        }
        for i in index(other.min)..=index(other.max) {
            self.counts[i] += other.counts[i];
            other.counts[i] = 0;
        }
        self.n += other.n;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        (other.n, other.min, other.max) = (0, u64::MAX, 0);
    }

    /// Samples recorded.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Largest sample (0 when empty).
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The `num/den` quantile (nearest rank) as the midpoint of its bucket,
    /// clamped to [min, max]; 0 when empty.
    pub fn quantile(&self, num: u64, den: u64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        // Nearest rank: the smallest sample with at least num/den of all
        // samples at or below it (1-based, at least 1).
        let rank = ((self.n as u128 * num as u128).div_ceil(den as u128) as u64).max(1);
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                if i == BUCKETS - 1 {
                    return self.max as f64; // no midpoint worth the name
                }
                let (lo, hi) = bounds(i);
                let mid = lo as f64 + (hi - lo - 1) as f64 / 2.0;
                // (f64::clamp would pull in float formatting for its panic.)
                return mid.max(self.min as f64).min(self.max as f64);
            }
        }
        self.max as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_range_without_gaps() {
        assert_eq!(BUCKETS, 4353);
        let mut next = 0u64;
        for i in 0..BUCKETS {
            let (lo, hi) = bounds(i);
            assert_eq!(lo, next, "bucket {i}");
            assert!(hi > lo);
            assert_eq!(index(lo), i, "lo of bucket {i}");
            assert_eq!(index(hi - 1), i, "hi of bucket {i}");
            // At most 1/128 of its lower bound wide (exact ones: 1 ns).
            assert!(i < 2 * SUB || i == BUCKETS - 1 || (hi - lo) * 128 <= lo);
            next = hi;
        }
        assert_eq!(next, u64::MAX);
        assert_eq!(index(u64::MAX), BUCKETS - 1);
        assert_eq!(index(255), 255);
        // 256 = 128 << 1: first bucket of the 2^8 octave, 2 ns wide.
        assert_eq!((index(256), index(257), index(258)), (256, 256, 257));
        assert_eq!(bounds(256), (256, 258));
    }

    #[test]
    fn hand_computed_quantiles() {
        let mut h = Histogram::default();
        assert_eq!(h.quantile(1, 2), 0.0);
        // 1..=100 ns, all exact buckets: nearest rank p50 = 50, p90 = 90,
        // p99 = 99, p99.9 = ceil(99.9) = 100.
        for v in 1..=100 {
            h.record(v);
        }
        assert_eq!(h.count(), 100);
        assert_eq!(h.quantile(1, 2), 50.0);
        assert_eq!(h.quantile(9, 10), 90.0);
        assert_eq!(h.quantile(99, 100), 99.0);
        assert_eq!(h.quantile(999, 1000), 100.0);
        assert_eq!(h.max(), 100);
    }

    #[test]
    fn tail_sample_shows_and_midpoints_are_close() {
        let mut h = Histogram::default();
        // 999 cycles of 5760 ns (32 pairs at 180 ns), one preempted at 2 ms.
        for _ in 0..999 {
            h.record(5760);
        }
        h.record(2_000_000);
        // 5760 = 180 << 5: bucket [5760, 5792), midpoint 5775.5 (0.27% high,
        // inside the 0.4% bound), within [min, max] so not clamped.
        assert_eq!(h.quantile(1, 2), 5775.5);
        assert_eq!(h.quantile(999, 1000), 5775.5);
        // The 1000th sample is the outlier: max exact, p100 clamped to it.
        assert_eq!(h.quantile(1, 1), 2_000_000.0);
        assert_eq!(h.max(), 2_000_000);
        for v in [300u64, 5_761, 123_456, 9_999_999, (1 << 39) + 12345] {
            let mut one = Histogram::default();
            one.record(v);
            one.record(v + (v >> 8)); // keep max above v so no clamp hides error
            let q = one.quantile(1, 2);
            assert!((q - v as f64).abs() <= v as f64 / 256.0, "{v}: {q}");
        }
    }

    #[test]
    fn absorb_moves_every_sample_and_empties_the_source() {
        let (mut all, mut round, mut direct) = (
            Histogram::default(),
            Histogram::default(),
            Histogram::default(),
        );
        all.absorb(&mut round); // empty: nothing changes
        assert_eq!((all.count(), all.max()), (0, 0));
        for v in [5760u64, 5800, 7, 2_000_000] {
            all.record(v);
            direct.record(v);
        }
        for v in [3u64, 5790, 1 << 45] {
            round.record(v);
            direct.record(v);
        }
        all.absorb(&mut round);
        assert_eq!(all.counts, direct.counts);
        assert_eq!(
            (all.n, all.min, all.max),
            (direct.n, direct.min, direct.max)
        );
        assert!(round.counts.iter().all(|&c| c == 0));
        assert_eq!((round.n, round.min, round.max), (0, u64::MAX, 0));
    }

    #[test]
    fn huge_values_share_the_last_bucket() {
        let mut h = Histogram::default();
        h.record(1 << 45);
        h.record(u64::MAX);
        assert_eq!(h.quantile(1, 2), u64::MAX as f64);
        assert_eq!(h.max(), u64::MAX);
    }
}
