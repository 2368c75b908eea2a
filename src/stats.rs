//! Round statistics: mean, median, min, max, sample standard deviation and
//! coefficient of variation, computed without a heap or libm.

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
    let mean = values.iter().sum::<f64>() / n as f64;
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let stddev = if n < 2 {
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

/// Square root by Newton's method (core has no sqrt without std).
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

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
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
    fn change_in_percent() {
        // The report: child 196.647 vs parents 180.079 and 179.856 -> +9.268%.
        let change = pct_change(196.647, (180.079 + 179.856) / 2.0);
        assert!((change - 9.268_062_289).abs() < 1e-6, "{change}");
    }
}
