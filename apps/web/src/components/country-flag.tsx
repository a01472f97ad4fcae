/**
 * Flags as SVG (emoji flags do not render on Windows), from country-flag-icons served by the app's
 * own server (GET /api/flags/<code>.svg, cached). Each <img> loads lazily, so the browser fetches only
 * the flags on screen and the country list costs the JavaScript bundle nothing.
 */
export const flagUrl = (code: string) => `/api/flags/${code.toUpperCase()}.svg`;

export function CountryFlag({ code, size = 24 }: { code: string; size?: number }) {
  const height = Math.round((size * 2) / 3);
  return (
    <img
      className="country-flag"
      src={flagUrl(code)}
      alt=""
      loading="lazy"
      decoding="async"
      width={size}
      height={height}
      style={{ inlineSize: size, blockSize: height }}
    />
  );
}
