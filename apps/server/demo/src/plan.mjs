// Helper for generate.sh: reads content.json (English and Arabic texts) and either
//   `node plan.mjs tasks`               -> prints tab-separated work items for the bash generator
//   `node plan.mjs manifest <durations>` -> writes ../program.json (durations: "story-NN<TAB>seconds" lines)
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const content = JSON.parse(readFileSync(join(here, "content.json"), "utf8"));
const pad = (n) => String(n).padStart(2, "0");
const clean = (s) => String(s).replace(/[\t\n]/g, " ");

const [cmd, arg] = process.argv.slice(2);

if (cmd === "tasks") {
  const out = [];
  const row = (...cols) => out.push(cols.map(clean).join("\t"));
  for (const c of content.characters) row("character", c.key, c.initial, c.color, c.light, c.name.en, c.intro);
  // Media with text on screen are rendered once per language: English first (the default), then Arabic.
  const arabic = (value, what) => {
    if (!value) throw new Error(`missing Arabic text: ${what}`);
    return value;
  };
  const L = content.landing;
  row("landing", "en", L.color, L.title, L.subtitle, L.narration);
  row(
    "landing",
    "ar",
    L.color,
    arabic(L.titleAr, "landing title"),
    arabic(L.subtitleAr, "landing subtitle"),
    arabic(L.narrationAr, "landing narration"),
  );
  for (const a of L.answers) row("landing-answer", a.character, a.lang, a.text);
  row("greeting", content.greeting);
  for (const i of content.instructions) {
    row("instruction", "en", i.slug, i.location, i.text);
    row("instruction", "ar", i.slug, arabic(i.locationAr, i.location), arabic(i.textAr, i.text));
  }
  content.stories.forEach((s, idx) => {
    const n = pad(idx + 1);
    row("story", "en", n, idx + 1, s.color, s.title.en, s.subtitle.en);
    row("story", "ar", n, idx + 1, s.color, s.title.ar, s.subtitle.ar);
    s.questions.forEach((q, qi) => {
      row("question", "en", n, qi + 1, s.color, q.text);
      row("question", "ar", n, qi + 1, s.color, arabic(q.textAr, q.text));
      for (const a of q.answers) row("answer", n, qi + 1, a.character, a.lang, a.text);
    });
  });
  process.stdout.write(`${out.join("\n")}\n`);
} else if (cmd === "manifest") {
  const durations = Object.fromEntries(
    readFileSync(arg, "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split("\t"))
      .map(([k, v]) => [k, Number(v)]),
  );
  const keys = new Set(content.characters.map((c) => c.key));
  const check = (k) => {
    if (!keys.has(k)) throw new Error(`unknown character ${k}`);
    return k;
  };
  const program = {
    characters: content.characters.map((c) => ({
      key: c.key,
      name: c.name,
      thumbnail: `images/${c.key}.jpg`,
      audio: `audio/characters/${c.key}.m4a`,
    })),
    stories: content.stories.map((s, idx) => {
      const n = pad(idx + 1);
      const d = durations[`story-${n}`];
      if (!d) throw new Error(`missing duration for story-${n}`);
      return {
        order: idx + 1,
        title: s.title,
        subtitle: s.subtitle,
        video: `videos/story-${n}.mp4`,
        videoAr: `videos/story-${n}-ar.mp4`,
        thumbnail: `thumbnails/story-${n}.jpg`,
        thumbnailAr: `thumbnails/story-${n}-ar.jpg`,
        durationSeconds: d,
        questions: s.questions.map((q, qi) => ({
          media: `question-media/s${n}-q${qi + 1}.mp4`,
          mediaAr: `question-media/s${n}-q${qi + 1}-ar.mp4`,
          answers: q.answers.map((a) => ({
            character: check(a.character),
            audio: `audio/answers/s${n}-q${qi + 1}-${a.character}.m4a`,
          })),
        })),
      };
    }),
    landing: {
      video: "videos/landing.mp4",
      videoAr: "videos/landing-ar.mp4",
      answers: content.landing.answers.map((a) => ({
        character: check(a.character),
        audio: `audio/landing-${a.character}.m4a`,
      })),
    },
    greetingAudio: "audio/greeting.m4a",
    instructions: content.instructions.map((i) => ({
      location: i.location,
      video: `instructions/${i.slug}.mp4`,
      videoAr: `instructions/${i.slug}-ar.mp4`,
    })),
    documents: { termsAndCondition: "documents/terms.pdf", privacyAndPolicy: "documents/privacy.pdf" },
  };
  writeFileSync(join(here, "..", "program.json"), `${JSON.stringify(program, null, 2)}\n`);
} else {
  console.error("usage: node plan.mjs tasks | manifest <durations.tsv>");
  process.exit(2);
}
