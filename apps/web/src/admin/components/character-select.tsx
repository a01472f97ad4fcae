import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { currentLanguage, useTranslation } from "../../lib/i18n.ts";
import { adminQueries } from "../api.ts";

/** The family members an answer can be given by, with `initial` (else the first one) chosen until the operator picks. */
export function useCharacterChoice(initial = "") {
  const characters = useQuery(adminQueries.characters());
  const [characterId, setCharacterId] = useState(initial);
  useEffect(() => {
    if (!characterId && characters.data?.[0]) setCharacterId(characters.data[0].id);
  }, [characters.data, characterId]);
  return { characters: characters.data, characterId, setCharacterId };
}

export function CharacterSelect({ choice }: { choice: ReturnType<typeof useCharacterChoice> }) {
  const { t } = useTranslation("admin");
  const id = useId();
  const ar = currentLanguage() === "ar";
  return (
    <div className="admin-field">
      <label htmlFor={id}>{t("questions.character")}</label>
      <select id={id} className="admin-input" value={choice.characterId} onChange={(e) => choice.setCharacterId(e.target.value)}>
        {choice.characters?.map((c) => (
          <option key={c.id} value={c.id}>
            {ar ? c.nameAr : c.nameEn}
          </option>
        ))}
      </select>
    </div>
  );
}
