#!/usr/bin/env bash
# Regenerates every demo media file under apps/server/demo/files/ and the manifest
# apps/server/demo/program.json from the text in apps/server/demo/src/.
#
#   bash apps/server/demo/generate.sh           # regenerate everything, then validate
#   bash apps/server/demo/generate.sh --check   # only validate the committed output
#
# Needs: bash, node (>=18), ffmpeg/ffprobe (libx264 + native aac), espeak-ng,
# chromium (headless, for the PDFs), fonts-dejavu-core, fonts-noto-core.
# The generated files are committed, so a normal install never runs this.
set -euo pipefail
export LC_ALL=C.UTF-8 TZ=UTC

DEMO="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="$DEMO/src"
OUT="$DEMO/files"

FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
FONT_BOLD=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf
# Arabic on-screen text: ffmpeg's drawtext joins and orders it with libfribidi (text_shaping, on by default).
FONT_AR=/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf
FONT_AR_BOLD=/usr/share/fonts/truetype/noto/NotoSansArabic-Bold.ttf
FPS=15

log() { printf '%s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# --------------------------------------------------------------------------- validation
validate() {
  local fail=0 p codecs
  log "== validating"
  while IFS= read -r p; do
    [[ -f "$OUT/$p" ]] || { log "missing: $p"; fail=1; }
  done < <(node -e '
    const p = require(process.argv[1]); const out = [];
    const walk = (v) => { if (typeof v === "string") { if (/^[a-z-]+\/.+\.[a-z0-9]+$/.test(v)) out.push(v); }
      else if (v && typeof v === "object") Object.values(v).forEach(walk); };
    walk(p); console.log(out.join("\n"));' "$DEMO/program.json")
  while IFS= read -r -d '' p; do
    codecs="$(ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$p" | sort | tr '\n' ' ')"
    [[ "$codecs" == "aac h264 " ]] || { log "bad codecs ($codecs): $p"; fail=1; }
  done < <(find "$OUT" -name '*.mp4' -print0)
  while IFS= read -r -d '' p; do
    codecs="$(ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$p" | tr '\n' ' ')"
    [[ "$codecs" == "aac " ]] || { log "bad codecs ($codecs): $p"; fail=1; }
  done < <(find "$OUT" -name '*.m4a' -print0)
  # files on disk that the manifest does not reference
  local listed; listed="$(node -e '
    const p = require(process.argv[1]); const out = [];
    const walk = (v) => { if (typeof v === "string") out.push(v); else if (v && typeof v === "object") Object.values(v).forEach(walk); };
    walk(p); console.log(out.join("\n"));' "$DEMO/program.json")"
  while IFS= read -r p; do
    grep -qxF "$p" <<<"$listed" || log "note: not referenced by program.json: $p"
  done < <(cd "$OUT" && find . -type f | sed 's|^\./||' | sort)
  log "files: $(find "$OUT" -type f | wc -l), total: $(du -sh "$OUT" | cut -f1) ($(du -sb "$OUT" | cut -f1) bytes)"
  # Both languages of every video: 6 MiB keeps the committed demo small (it was 4 MiB with English only).
  (( $(du -sb "$OUT" | cut -f1) < 6 * 1024 * 1024 )) || { log "total size is over 6 MB"; fail=1; }
  (( fail == 0 )) || die "validation failed"
  log "ok"
}

if [[ "${1:-}" == "--check" ]]; then validate; exit 0; fi

# --------------------------------------------------------------------------- tools
for t in node ffmpeg ffprobe espeak-ng; do command -v "$t" >/dev/null || die "missing tool: $t"; done
CHROME="${CHROME:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}"
[[ -n "$CHROME" ]] || die "missing tool: chromium (or set CHROME=/path/to/chrome)"
[[ -f "$FONT" && -f "$FONT_BOLD" ]] || die "missing DejaVu fonts (fonts-dejavu-core)"
[[ -n "$(fc-list 'Noto Naskh Arabic' 2>/dev/null)" ]] || log "warning: Noto Naskh Arabic not found (fonts-noto-core); PDFs may fall back"
[[ -f "$FONT_AR" && -f "$FONT_AR_BOLD" ]] || die "missing Noto Sans Arabic fonts (fonts-noto-core)"
ffmpeg -hide_banner -buildconf | grep -q enable-libfribidi || die "ffmpeg without libfribidi cannot shape Arabic text"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

rm -rf "$OUT"
mkdir -p "$OUT"/{videos,thumbnails,question-media,audio/answers,audio/characters,images,instructions,documents}
: >"$TMP/durations.tsv"

# Deterministic, metadata-free output.
BITEXACT=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1 -map_chapters -1)
AAC=(-c:a aac -ac 1 -ar 22050)   # + -b:a per item (32k for character intros/greeting, 20k elsewhere)
X264=(-c:v libx264 -preset veryfast -profile:v main -level 3.0 -pix_fmt yuv420p -g 30 -threads 2 -movflags +faststart)
FF=(ffmpeg -nostdin -hide_banner -loglevel error -y)

# float helpers
duration() { ffprobe -v error -show_entries format=duration -of csv=p=0 "$1"; }
calc() { awk "BEGIN { printf \"%s\", $1 }"; }
# clamp(x, lo, hi) rounded up to 0.1 s
clamp01() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { x = int(x * 10 + 0.999) / 10; if (x < lo) x = lo; if (x > hi) x = hi; printf "%.1f", x }'; }
# clamp(x, lo, hi) rounded up to whole seconds
clampint() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { x = int(x + 0.999); if (x < lo) x = lo; if (x > hi) x = hi; printf "%d", x }'; }

# voice for a speaker: narrator | grandmother | grandfather | aunt, language en | ar
voice_for() {
  local who="$1" lang="$2"
  case "$who" in
    grandmother) echo "$lang+f3 -p 40" ;;
    grandfather) echo "$lang+m3 -p 30" ;;
    aunt) echo "$lang+f2 -p 60" ;;
    *) echo "$lang+m1 -p 50" ;;
  esac
}

# speak OUT.wav SPEAKER LANG MAXSECONDS TEXT — speeds up until the speech fits
speak() {
  local out="$1" who="$2" lang="$3" max="$4" text="$5" speed d
  read -r -a v <<<"$(voice_for "$who" "$lang")"
  for speed in 155 170 185 200 215; do
    espeak-ng -v "${v[@]}" -s "$speed" -w "$out" -- "$text"
    d="$(duration "$out")"
    [[ "$(calc "$d <= $max")" == 1 ]] && return 0
  done
  log "warning: speech longer than ${max}s ($d s): $text"
}

# audio_item OUT.m4a SPEAKER LANG MIN MAX TEXT [BITRATE]
audio_item() {
  local out="$1" who="$2" lang="$3" min="$4" max="$5" text="$6" br="${7:-20k}" d
  speak "$TMP/a.wav" "$who" "$lang" "$(calc "$max - 0.35")" "$text"
  d="$(clamp01 "$(calc "$(duration "$TMP/a.wav") + 0.35")" "$min" "$max")"
  "${FF[@]}" -i "$TMP/a.wav" \
    -af "adelay=150,apad,afade=t=out:st=$(calc "$d - 0.15"):d=0.15" -t "$d" \
    "${AAC[@]}" -b:a "$br" -movflags +faststart "${BITEXACT[@]}" "$out"
}

# A soft white disc with anti-aliased edge, scaled per frame in the videos.
"${FF[@]}" -f lavfi -i "color=c=white:s=320x320,format=rgba,geq=r=255:g=255:b=255:a='255*clip(159-hypot(X-159.5\,Y-159.5)\,0\,1)'" \
  -frames:v 1 "$TMP/disc.png"

# Text lines for render_video: entries "FONT<TAB>SIZE<TAB>Y<TAB>ALPHA<TAB>TEXT"
TEXTS=()
add_text() { TEXTS+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"$4"$'\t'"$5"); }
# add_wrapped FONT SIZE Y0 LINEHEIGHT ALPHA WIDTH TEXT (WIDTH in bytes: fold counts bytes, an Arabic letter is two)
add_wrapped() {
  local font="$1" size="$2" y="$3" lh="$4" alpha="$5" width="$6" line
  while IFS= read -r line; do
    add_text "$font" "$size" "$y" "$alpha" "$line"
    y=$((y + lh))
  done < <(printf '%s\n' "$7" | fold -s -w "$width" | sed 's/ *$//')
}

# render_video OUT W H DURATION COLOR WAV CRF  (uses and clears TEXTS)
render_video() {
  local out="$1" w="$2" h="$3" d="$4" color="$5" wav="$6" crf="$7"
  local bar=$((h / 45 > 3 ? h / 45 : 3)) d0 d1 i=0 entry font size y alpha text chain=""
  d0="$(calc "int($h * 0.35)")"; d1="$(calc "int($h * 0.95)")"
  for entry in "${TEXTS[@]}"; do
    IFS=$'\t' read -r font size y alpha text <<<"$entry"
    printf '%s' "$text" >"$TMP/text-$i.txt"
    chain+=",drawtext=fontfile=$font:textfile=$TMP/text-$i.txt:fontsize=$size:fontcolor=white:x=(w-text_w)/2:y=$y:alpha='$alpha*min(1\,t/0.6)'"
    i=$((i + 1))
  done
  TEXTS=()
  "${FF[@]}" \
    -f lavfi -i "color=c=$color:s=${w}x${h}:r=$FPS:d=$d" \
    -loop 1 -framerate "$FPS" -i "$TMP/disc.png" \
    -f lavfi -i "color=c=white:s=${w}x${bar}:r=$FPS:d=$d" \
    -i "$wav" \
    -filter_complex "\
[1:v]format=rgba,colorchannelmixer=aa=0.16,scale=w='$d0+($d1-$d0)*t/$d':h='$d0+($d1-$d0)*t/$d':eval=frame[disc];\
[0:v][disc]overlay=x='(W-w)/2':y='(H-h)/2':shortest=1[bg];\
[2:v]format=rgba,colorchannelmixer=aa=0.8[bar];\
[bg][bar]overlay=x='-w+w*t/$d':y=H-h-2$chain,format=yuv420p[v];\
[3:a]adelay=300,apad,afade=t=out:st=$(calc "$d - 0.2"):d=0.2[a]" \
    -map '[v]' -map '[a]' -t "$d" \
    "${X264[@]}" -crf "$crf" "${AAC[@]}" -b:a 20k "${BITEXACT[@]}" "$out"
}

# Per language: the file name suffix (English is the default and has none), the fonts, the wrap width in bytes.
suffix() { [[ "$1" == ar ]] && printf -- '-ar' || true; }
set_fonts() {
  if [[ "$1" == ar ]]; then REGULAR="$FONT_AR" BOLD="$FONT_AR_BOLD"; else REGULAR="$FONT" BOLD="$FONT_BOLD"; fi
}
wrap() { if [[ "$1" == ar ]]; then echo $(($2 * 2)); else echo "$2"; fi; }

# --------------------------------------------------------------------------- work items
node "$SRC/plan.mjs" tasks >"$TMP/tasks.tsv"

while IFS=$'\t' read -r kind a1 a2 a3 a4 a5 a6; do
  case "$kind" in
  character) # key initial color light name-en intro
    log "character $a1"
    audio_item "$OUT/audio/characters/$a1.m4a" "$a1" en 3 5 "$a6" 32k
    "${FF[@]}" -f lavfi -i "color=c=$a3:s=192x192" \
      -f lavfi -i "color=c=$a4:s=192x192,format=rgba,geq=r='r(X\,Y)':g='g(X\,Y)':b='b(X\,Y)':a='255*clip(78-hypot(X-95.5\,Y-95.5)\,0\,1)'" \
      -filter_complex "[0:v][1:v]overlay,drawtext=fontfile=$FONT_BOLD:text=$a2:fontsize=92:fontcolor=$a3:x=(w-text_w)/2:y=(h-text_h)/2" \
      -frames:v 1 -q:v 3 "${BITEXACT[@]}" "$OUT/images/$a1.jpg"
    ;;
  landing) # lang color title subtitle narration
    log "landing $a1"
    sfx="$(suffix "$a1")"; set_fonts "$a1"
    speak "$TMP/n.wav" narrator "$a1" 6.5 "$a5"
    d="$(clampint "$(calc "$(duration "$TMP/n.wav") + 1")" 6 8)"
    add_text "$BOLD" 44 118 1 "$a3"
    add_wrapped "$REGULAR" 22 190 32 0.85 "$(wrap "$a1" 40)" "$a4"
    render_video "$OUT/videos/landing$sfx.mp4" 640 360 "$d" "$a2" "$TMP/n.wav" 31
    ;;
  landing-answer) # character lang text
    log "landing answer $a1"
    audio_item "$OUT/audio/landing-$a1.m4a" "$a1" "$a2" "$a3" 2 4
    ;;
  greeting)
    log "greeting"
    audio_item "$OUT/audio/greeting.m4a" narrator en 4 5 "$a1" 32k
    ;;
  instruction) # lang slug location text
    log "instruction $a2 $a1"
    sfx="$(suffix "$a1")"; set_fonts "$a1"
    speak "$TMP/n.wav" narrator "$a1" 4.4 "$a4"
    d="$(clamp01 "$(calc "$(duration "$TMP/n.wav") + 0.6")" 3 5)"
    if (( ${#a3} > 20 )); then add_text "$BOLD" 16 28 1 "$a3"; else add_text "$BOLD" 19 26 1 "$a3"; fi
    add_wrapped "$REGULAR" 14 74 21 0.95 "$(wrap "$a1" 34)" "$a4"
    render_video "$OUT/instructions/$a2$sfx.mp4" 320 180 "$d" "#34495E" "$TMP/n.wav" 34
    ;;
  story) # lang NN order color title subtitle
    log "story $a2 $a1"
    sfx="$(suffix "$a1")"; set_fonts "$a1"
    label="Story $a3"; [[ "$a1" == ar ]] && label="القصة $a3"
    if [[ "$a1" == en ]]; then
      speak "$TMP/n.wav" narrator en 5.2 "$label. $a5. $a6."
      d="$(clampint "$(calc "$(duration "$TMP/n.wav") + 0.8")" 5 6)"
      printf 'story-%s\t%s\n' "$a2" "$d" >>"$TMP/durations.tsv"
    else
      # The Arabic video keeps the English one's length: a story has one duration whichever video plays.
      d="$(awk -F'\t' -v k="story-$a2" '$1 == k { print $2 }' "$TMP/durations.tsv")"
      [[ -n "$d" ]] || die "story $a2: Arabic before English"
      speak "$TMP/n.wav" narrator ar "$(calc "$d - 0.8")" "$label. $a5. $a6."
    fi
    add_text "$BOLD" 54 92 1 "$label"
    add_wrapped "$REGULAR" 34 168 42 1 "$(wrap "$a1" 30)" "$a5"
    n="$(printf '%s\n' "$a5" | fold -s -w "$(wrap "$a1" 30)" | wc -l)"
    add_text "$REGULAR" 20 $((208 + 42 * n)) 0.85 "$a6"
    render_video "$OUT/videos/story-$a2$sfx.mp4" 640 360 "$d" "$a4" "$TMP/n.wav" 31
    "${FF[@]}" -ss 3 -i "$OUT/videos/story-$a2$sfx.mp4" -frames:v 1 -vf scale=176:100:flags=lanczos -q:v 4 \
      "${BITEXACT[@]}" "$OUT/thumbnails/story-$a2$sfx.jpg"
    ;;
  question) # lang NN K color text
    log "question s$a2-q$a3 $a1"
    sfx="$(suffix "$a1")"; set_fonts "$a1"
    label="Question $a3"; [[ "$a1" == ar ]] && label="السؤال $a3"
    speak "$TMP/n.wav" narrator "$a1" 3.3 "$a5"
    d="$(clamp01 "$(calc "$(duration "$TMP/n.wav") + 0.6")" 3 4)"
    add_text "$BOLD" 24 30 1 "$label"
    add_wrapped "$REGULAR" 16 84 23 1 "$(wrap "$a1" 30)" "$a5"
    render_video "$OUT/question-media/s$a2-q$a3$sfx.mp4" 320 180 "$d" "$a4" "$TMP/n.wav" 34
    ;;
  answer) # NN K character lang text
    audio_item "$OUT/audio/answers/s$a1-q$a2-$a3.m4a" "$a3" "$a4" 2 4 "$a5"
    ;;
  *) die "unknown task: $kind" ;;
  esac
done <"$TMP/tasks.tsv"

# --------------------------------------------------------------------------- documents
print_pdf() { # SRC.html OUT.pdf
  log "pdf $(basename "$2")"
  "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --no-first-run --no-default-browser-check --user-data-dir="$TMP/chrome" \
    --no-pdf-header-footer --print-to-pdf-no-header --print-to-pdf="$2" "file://$1" >/dev/null 2>&1
  [[ -s "$2" ]] || die "chromium did not produce $2"
  # Pin the embedded creation/modification dates so re-runs give identical bytes.
  perl -0777 -pi -e 's/\(D:\d{14}/(D:20250101000000/g' "$2"
}
print_pdf "$SRC/terms.html" "$OUT/documents/terms.pdf"
print_pdf "$SRC/privacy.html" "$OUT/documents/privacy.pdf"

# --------------------------------------------------------------------------- manifest
node "$SRC/plan.mjs" manifest "$TMP/durations.tsv"
log "wrote program.json"

validate
