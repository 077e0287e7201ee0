/** The business information as Settings shows it. */

/** A business registration number as it is written on paper: 123-45-67890 (any other length is shown as stored). */
export const corpNumShown = (n: string) => (n.length === 10 ? `${n.slice(0, 3)}-${n.slice(3, 5)}-${n.slice(5)}` : n);
