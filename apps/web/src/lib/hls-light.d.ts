// hls.js ships types for its full build only; the light build (no subtitles, DRM or alternate audio: about a
// third smaller) has the same API for what the story player uses.
declare module "hls.js/light" {
  export { default } from "hls.js";
}
