/** A decimal string as a number when the number prints back to the same value, else the string. */
export function decimalValue(text: string): number | string {
  const trimmed = text.trim();
  if (!/^-?\d+(\.\d+)?$/.test(trimmed)) return trimmed;
  const n = Number(trimmed);
  if (!Number.isFinite(n)) return trimmed;
  if (!trimmed.includes('.')) return Number.isSafeInteger(n) ? n : trimmed;
  const digits = trimmed.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return digits.length <= 15 ? n : trimmed;
}
