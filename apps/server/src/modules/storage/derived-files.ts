/**
 * Files made from a stored file (the media module's HLS renditions, posters, captions, a voice's normalised copy)
 * live beside it, under `<key>.media/`, in the same bucket and under the same access rule. The layout is storage's:
 * the sweep keeps such a file exactly as long as its original, and never needs to know who made it.
 */
export const DERIVED_MARK = ".media/";
export const derivedPrefix = (key: string) => `${key}${DERIVED_MARK}`;

/** The source key a derived file belongs to, or null for any other key. */
export function ownerKeyOf(key: string): string | null {
  const at = key.indexOf(DERIVED_MARK);
  return at > 0 ? key.slice(0, at) : null;
}
