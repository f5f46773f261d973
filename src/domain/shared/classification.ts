/** Classification levels, least to most restrictive. */
export const CLASSIFICATION_LEVELS = ['public', 'internal', 'confidential', 'restricted'] as const;
export type Classification = (typeof CLASSIFICATION_LEVELS)[number];

const MOST_RESTRICTIVE = CLASSIFICATION_LEVELS.length - 1;

export function isClassification(value: unknown): value is Classification {
  return typeof value === 'string' && (CLASSIFICATION_LEVELS as readonly string[]).includes(value);
}

/** Rank of a data classification; an unknown label counts as the most restrictive (OC-5). */
export function classificationRank(level: string): number {
  const rank = (CLASSIFICATION_LEVELS as readonly string[]).indexOf(level);
  return rank === -1 ? MOST_RESTRICTIVE : rank;
}

/** An unknown ceiling admits nothing. */
export function isWithin(level: string, ceiling: string): boolean {
  return isClassification(ceiling) && classificationRank(level) <= classificationRank(ceiling);
}

/** The tighter of two ceilings (TR-2 intersection). */
export function minClassification(a: Classification, b: Classification): Classification {
  return classificationRank(a) <= classificationRank(b) ? a : b;
}
