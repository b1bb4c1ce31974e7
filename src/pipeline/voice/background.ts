export const FEATURE_CENTER: readonly number[] = new Array(200).fill(0);
export const FEATURE_SCALE: readonly number[] = new Array(200).fill(1);
