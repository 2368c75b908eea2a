//! Round statistics: mean, median, min, max, sample standard deviation and
//! coefficient of variation; the Welch interval of a difference of means
//! with the Student-t quantile it needs. No heap, no libm.

/// Summary of a set of per-round values (ns/pair).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation (n - 1 in the denominator); 0 for n < 2.
    pub stddev: f64,
    /// stddev / mean * 100; 0 when the mean is 0.
    pub cv_pct: f64,
}

/// Most values `summarize` sorts (the round limit).
pub const MAX_VALUES: usize = 4096;

/// Summarizes `values` (at most MAX_VALUES are used; empty gives zeros).
pub fn summarize(values: &[f64]) -> Summary {
    let values = &values[..values.len().min(MAX_VALUES)];
    let n = values.len();
    if n == 0 {
        return Summary::default();
    }
    let mut sorted = [0f64; MAX_VALUES];
    sorted[..n].copy_from_slice(values);
    let sorted = &mut sorted[..n];
    insertion_sort(sorted);
    // Values all alike (exact points: QEMU's instruction clock) are their
    // own mean with no spread at all, not a rounding error's worth.
    let alike = sorted[0] == sorted[n - 1];
    let mean = match alike {
        true => sorted[0],
        false => values.iter().sum::<f64>() / n as f64,
    };
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let stddev = if n < 2 || alike {
        0.0
    } else {
        let ss: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
        sqrt(ss / (n - 1) as f64)
    };
    let cv_pct = if mean == 0.0 {
        0.0
    } else {
        stddev / mean * 100.0
    };
    Summary {
        n,
        mean,
        median,
        min: sorted[0],
        max: sorted[n - 1],
        stddev,
        cv_pct,
    }
}

/// Sorts by `f64::total_cmp`. Insertion sort: at most 4096 values, sorted
/// once per run outside any timed span, and about 8 KiB smaller in the
/// binary than core's pattern-defeating quicksort.
fn insertion_sort(v: &mut [f64]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1].total_cmp(&x).is_gt() {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

/// Square root by Newton's method (core has no sqrt without std). Not
/// inlined: six callers each had their own copy of it (its checks and
/// its loop).
#[inline(never)]
pub fn sqrt(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 || x.is_infinite() {
        return x;
    }
    // Start from the exponent halved: within a factor of 2 of the root.
    let bits = x.to_bits();
    let mut y = f64::from_bits((bits >> 1) + (1023u64 << 51));
    for _ in 0..8 {
        y = 0.5 * (y + x / y);
    }
    y
}

/// Percentage change of `value` against `base`.
pub fn pct_change(value: f64, base: f64) -> f64 {
    (value - base) / base * 100.0
}

/// Two-sided 95% Student-t quantiles t(0.975, df) for df = 1..=30, to six
/// decimals (computed with mpmath from the regularized incomplete beta).
const T975: [f64; 30] = [
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157,
    2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922,
    2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831,
    2.048407, 2.045230, 2.042272,
];

/// The normal quantile z(0.975).
const Z975: f64 = 1.959_963_984_540_054;

/// t(0.975, df) for a real df >= 1 (smaller df is taken as 1).
///
/// df <= 30: the table above, linear in 1/df between integer entries (the
/// quantile is convex in 1/df, so this never undershoots: +0.01% at most
/// for df >= 5, up to +18% between df 1 and 2). df > 30: the Cornish-Fisher
/// expansion in 1/df to the fourth order (Abramowitz & Stegun 26.7.5),
/// relative error below 2e-8 there.
pub fn t975(df: f64) -> f64 {
    if df.is_nan() {
        return f64::NAN;
    }
    let df = if df < 1.0 { 1.0 } else { df };
    if df > 30.0 {
        let z = Z975;
        let z2 = z * z;
        let g1 = (z2 + 1.0) * z / 4.0;
        let g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
        let g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
        let g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
        let x = 1.0 / df;
        return z + x * (g1 + x * (g2 + x * (g3 + x * g4)));
    }
    let lo = df as usize; // 1..=30
    if lo == 30 {
        return T975[29];
    }
    let (a, b) = (T975[lo - 1], T975[lo]);
    let frac = (1.0 / lo as f64 - 1.0 / df) / (1.0 / lo as f64 - 1.0 / (lo + 1) as f64);
    a + (b - a) * frac
}

/// A linear combination of independent sample means, sum(c_i * mean_i),
/// with its Welch-Satterthwaite variance and degrees of freedom: the
/// interval of "test midpoint minus control midpoint" when each point's
/// rounds are a sample of its own.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contrast {
    /// sum(c_i^2 s_i^2 / n_i): the variance of the combination.
    pub var: f64,
    /// sum((c_i^2 s_i^2 / n_i)^2 / (n_i - 1)): the Satterthwaite denominator.
    den: f64,
    /// Rounds behind it (sum of n_i).
    pub rounds: usize,
    /// False once a sample with fewer than 2 values was added.
    pub ok: bool,
}

impl Contrast {
    pub fn new() -> Contrast {
        Contrast {
            ok: true,
            ..Contrast::default()
        }
    }

    /// Adds sample `s` with coefficient `c`. Not inlined: five callers
    /// each had their own copy of the sums.
    #[inline(never)]
    pub fn add(&mut self, c: f64, s: &Summary) {
        self.rounds += s.n;
        if s.n < 2 {
            self.ok = false;
            return;
        }
        let w = c * c * s.stddev * s.stddev / s.n as f64;
        self.var += w;
        self.den += w * w / (s.n - 1) as f64;
    }

    /// Welch-Satterthwaite degrees of freedom (infinite when every sample
    /// has zero spread).
    pub fn df(&self) -> f64 {
        if self.den == 0.0 {
            f64::INFINITY
        } else {
            self.var * self.var / self.den
        }
    }

    /// Half-width of the 95% interval, t(0.975, df) * sqrt(var); NaN when a
    /// sample had fewer than 2 values.
    pub fn half_width95(&self) -> f64 {
        if !self.ok {
            return f64::NAN;
        }
        if self.var == 0.0 {
            return 0.0;
        }
        t975(self.df()) * sqrt(self.var)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn sort_matches_std() {
        // A fixed pseudo-random sequence (LCG) with duplicates, plus edges.
        let mut x = 12345u64;
        let mut v: Vec<f64> = (0..1000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 40) as f64 / 7.0
            })
            .collect();
        v.extend([0.0, 0.0, 1e300, -5.0]);
        let mut want = v.clone();
        want.sort_by(|a, b| a.total_cmp(b));
        insertion_sort(&mut v);
        assert_eq!(v, want);
        for n in 0..6 {
            let mut w: Vec<f64> = (0..n).rev().map(|i| i as f64).collect();
            insertion_sort(&mut w);
            assert!(w.windows(2).all(|p| p[0] <= p[1]), "{w:?}");
        }
    }

    #[test]
    fn sqrt_matches_std() {
        for &x in &[1e-12, 0.25, 1.0, 2.0, 3.0, 10.0, 12345.678, 1e20, 7.7e-300] {
            assert!(close(sqrt(x), x.sqrt()), "{x}");
        }
        assert_eq!(sqrt(0.0), 0.0);
        assert!(sqrt(-1.0).is_nan());
    }

    #[test]
    fn hand_computed_summary() {
        // values 2,4,4,4,5,5,7,9: mean 5, sum of squares 32, sample var 32/7.
        let s = summarize(&[9.0, 2.0, 4.0, 4.0, 5.0, 4.0, 5.0, 7.0]);
        assert_eq!(s.n, 8);
        assert!(close(s.mean, 5.0));
        assert!(close(s.median, 4.5));
        assert_eq!((s.min, s.max), (2.0, 9.0));
        assert!(close(s.stddev, (32.0f64 / 7.0).sqrt()));
        assert!(close(s.cv_pct, (32.0f64 / 7.0).sqrt() / 5.0 * 100.0));
    }

    #[test]
    fn insertion_sort_matches_core_sort() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut v: Vec<f64> = (0..1000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 10_000) as f64 / 7.0 - 500.0
            })
            .collect();
        v.extend([f64::NAN, -0.0, 0.0, f64::INFINITY, 180.0, 180.0]);
        let mut want = v.clone();
        want.sort_by(|a, b| a.total_cmp(b));
        insertion_sort(&mut v);
        assert_eq!(
            v.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|f| f.to_bits()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn odd_count_median_and_single_value() {
        assert_eq!(summarize(&[3.0, 1.0, 2.0]).median, 2.0);
        let one = summarize(&[180.0]);
        assert_eq!(
            (one.mean, one.median, one.stddev, one.cv_pct),
            (180.0, 180.0, 0.0, 0.0)
        );
        assert_eq!(summarize(&[]).n, 0);
    }

    #[test]
    fn values_all_alike_have_no_spread() {
        // 15 x 396.500488 does not sum to 15 times it in floating point:
        // the mean would be off by an ulp and the sd a rounding error.
        let v = [396.500488; 15];
        let naive = v.iter().sum::<f64>() / 15.0;
        assert_ne!(naive, 396.500488, "pick a value that shows it");
        let s = summarize(&v);
        assert_eq!((s.mean, s.stddev, s.cv_pct), (396.500488, 0.0, 0.0));
    }

    #[test]
    fn change_in_percent() {
        // The report: child 196.647 vs parents 180.079 and 179.856 -> +9.268%.
        let change = pct_change(196.647, (180.079 + 179.856) / 2.0);
        assert!((change - 9.268_062_289).abs() < 1e-6, "{change}");
    }
    #[test]
    fn t_quantiles_against_known_values() {
        // Textbook table values, three decimals.
        for (df, t) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (10.0, 2.228),
            (28.0, 2.048),
            (30.0, 2.042),
        ] {
            assert!((t975(df) - t).abs() < 5e-4, "df {df}: {}", t975(df));
        }
        // mpmath, non-integer and large df (Welch gives real df).
        for (df, t, tol) in [
            (6.972, 2.366_550_72, 1e-4),
            (10.5, 2.213_840_29, 1e-4),
            (41.2, 2.019_243_28, 1e-7),
            (40.0, 2.021_075_39, 1e-7),
            (100.0, 1.983_971_52, 1e-7),
            (1000.0, 1.962_339_08, 1e-7),
        ] {
            let got = t975(df);
            assert!(
                got >= t - 1e-7 && got - t < tol * t,
                "df {df}: {got} vs {t}"
            );
        }
        assert!((t975(f64::INFINITY) - 1.959_964).abs() < 1e-6);
        assert_eq!(t975(0.3), t975(1.0));
        assert!(t975(f64::NAN).is_nan());
        // Monotone decreasing across the table/expansion seam.
        assert!(t975(29.9) > t975(30.0) && t975(30.0) > t975(30.1));
        assert!(t975(30.1) > t975(31.0));
    }

    #[test]
    fn welch_two_samples_hand_computed() {
        // A = 1..5: mean 3, s^2 2.5, s^2/n 0.5. B = 2,4,..,12: mean 7,
        // s^2 70/5 = 14, s^2/n 14/6. var = 0.5 + 7/3 = 17/6; the
        // Satterthwaite denominator 0.5^2/4 + (7/3)^2/5 = 0.0625 + 49/45.
        let a = summarize(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        let b = summarize(&[2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
        let mut c = Contrast::new();
        c.add(1.0, &b);
        c.add(-1.0, &a);
        assert!(close(c.var, 17.0 / 6.0));
        let df = (17.0f64 / 6.0).powi(2) / (0.0625 + 49.0 / 45.0);
        assert!(close(c.df(), df), "{}", c.df());
        assert!((df - 6.972_256).abs() < 1e-5);
        // t(0.975, 6.972256) = 2.366533 (mpmath); half-width = t * sqrt(17/6).
        let hw = c.half_width95();
        assert!(
            (hw - 2.366_533 * (17.0f64 / 6.0).sqrt()).abs() < 3e-4,
            "{hw}"
        );
        assert_eq!(c.rounds, 11);
    }

    #[test]
    fn welch_midpoint_contrast_and_degenerate_cases() {
        // Child minus the midpoint of two parents: coefficients 1, -1/2, -1/2.
        let child = summarize(&[10.0, 12.0]); // s^2 2, /2 = 1
        let pa = summarize(&[4.0, 6.0]); // s^2 2, /2 = 1
        let pb = summarize(&[5.0, 5.0]); // s^2 0
        let mut c = Contrast::new();
        c.add(1.0, &child);
        c.add(-0.5, &pa);
        c.add(-0.5, &pb);
        // var = 1 + 0.25 * 1 + 0 = 1.25; den = 1/1 + 0.0625/1 = 1.0625.
        assert!(close(c.var, 1.25));
        assert!(close(c.df(), 1.25 * 1.25 / 1.0625));
        assert_eq!(c.rounds, 6);
        // No spread at all: a zero-width interval, infinite df.
        let mut flat = Contrast::new();
        flat.add(1.0, &pb);
        assert_eq!((flat.half_width95(), flat.df()), (0.0, f64::INFINITY));
        // One round: no interval.
        let mut one = Contrast::new();
        one.add(1.0, &summarize(&[3.0]));
        assert!(!one.ok && one.half_width95().is_nan());
    }
}
