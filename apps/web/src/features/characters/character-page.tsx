import { LANDING_AUTO_ADVANCE_MS, type LandingAnswer } from "@hikaya/contracts";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import { PageSpinner } from "../../components/spinner.tsx";
import { TitleBar } from "../../components/title-bar.tsx";
import { api } from "../../lib/api-client.ts";
import { currentLanguage, setLanguage, useTranslation } from "../../lib/i18n.ts";
import { useNavigate } from "../../lib/router.tsx";
import { getAccessToken } from "../../lib/session.ts";
import { AudioBar, type BarState } from "./audio-bar.tsx";
import "./characters.css";

const answersQuery = {
  queryKey: ["landing-answers"],
  queryFn: ({ signal }: { signal: AbortSignal }) => api<LandingAnswer[]>("/landing/answers", { signal }),
  staleTime: 5 * 60_000,
  retry: false,
};

/**
 * The family members' answers (/character, /arabic-character): one audio bar each. The highlighted
 * bar moves on every 3 s unless something is playing; when the last answer finishes, a signed-in
 * person goes to the stories, a visitor to /login.
 */
export function CharacterPage({ arabic = false }: { arabic?: boolean }) {
  const { t } = useTranslation("characters");
  const navigate = useNavigate();
  const language = currentLanguage();
  // Failures are silently ignored (spec section 8): the screen shows its empty state.
  const answers = useQuery(answersQuery);
  const list = answers.data ?? [];
  const [highlighted, setHighlighted] = useState(0);
  const [playing, setPlaying] = useState<number | null>(null);

  useEffect(() => {
    if (arabic && !new URLSearchParams(window.location.search).has("lng") && currentLanguage() !== "ar") void setLanguage("ar");
  }, [arabic]);

  useEffect(() => {
    if (playing !== null || list.length === 0) return;
    const timer = setInterval(() => setHighlighted((i) => Math.min(i + 1, list.length - 1)), LANDING_AUTO_ADVANCE_MS);
    return () => clearInterval(timer);
  }, [playing, list.length]);

  const finish = useCallback(() => navigate(getAccessToken() ? "/" : "/login"), [navigate]);

  const onState = (index: number, state: BarState) => {
    if (state === "playing") {
      setPlaying(index);
      setHighlighted(index);
    } else if (state === "finished") {
      setPlaying(null);
      if (index === list.length - 1) finish();
      else setHighlighted(index + 1);
    } else setPlaying((p) => (p === index ? null : p));
  };

  return (
    <main className="screen characters">
      <TitleBar title={t("title")} />
      <div className="screen__body">
        <div className="characters__intro">
          <h2>{t("heading")}</h2>
          <p>{t("intro")}</p>
        </div>
        {answers.isPending ? (
          <PageSpinner />
        ) : list.length === 0 ? (
          <p className="characters__empty">{t("empty")}</p>
        ) : (
          <ul className="characters__list">
            {list.map((answer, index) => {
              const name =
                language === "ar" ? answer.nameOfFamilyMemberAr || answer.nameOfFamilyMember : answer.nameOfFamilyMember;
              return (
                <AudioBar
                  key={answer._id}
                  name={name}
                  audio={answer.audio}
                  thumbnail={answer.thumbnail}
                  transcript={answer.transcript ?? null}
                  highlighted={index === highlighted}
                  playing={playing === index}
                  onToggle={() => setPlaying((p) => (p === index ? null : index))}
                  onState={(state) => onState(index, state)}
                />
              );
            })}
          </ul>
        )}
        <button type="button" className="button button--primary button--block" onClick={finish}>
          {t("continue")}
        </button>
      </div>
    </main>
  );
}

export const EnglishCharacterPage = () => <CharacterPage />;
export const ArabicCharacterPage = () => <CharacterPage arabic />;
