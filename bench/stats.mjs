/** The figures every benchmark reports: medians, minimums and sample counts. */

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values) {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Median, minimum and number of samples. */
export function summary(values) {
  return { median: median(values), min: Math.min(...values), samples: values.length };
}
