import { AGE_GROUPS, GENDERS } from "@hikaya/contracts/constants";
import { type FormEvent, useEffect, useState } from "react";
import { TextField } from "../../components/form-fields.tsx";
import { useRequireUser } from "../../components/require-user.ts";
import { PageSpinner } from "../../components/spinner.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { TitleBar } from "../../components/title-bar.tsx";
import { errorText } from "../../lib/errors.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { useInstruction } from "../../lib/instructions.ts";
import { useMe } from "../../lib/me.ts";
import { Navigate, useNavigate } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { useUpdateProfile } from "./api/profile.ts";
import "../../components/form-fields.css";
import "./messages.css";

const text = (v: unknown) => (typeof v === "string" ? v : "");

/**
 * /user-home: the way into the Message Center. A profile without name, city, gender or age group
 * gets the spec's profile form (with the "Message Center" instruction video); submitting it, or a
 * complete profile, goes on to /chats.
 */
export function UserHomePage() {
  const { t } = useTranslation("messages");
  const signedIn = useRequireUser();
  const me = useMe();
  const navigate = useNavigate();
  const video = useInstruction("Message Center");
  const update = useUpdateProfile();
  const [values, setValues] = useState({ name: "", city: "", gender: "", ageGroup: "" });

  useEffect(() => {
    if (!me.data) return;
    setValues({
      name: text(me.data.name),
      city: text(me.data.city),
      gender: text(me.data.gender),
      ageGroup: text(me.data.ageGroup),
    });
  }, [me.data]);

  if (!signedIn || me.isPending) return <PageSpinner />;
  const p = me.data;
  if (p?.name && p.city && p.gender && p.ageGroup) return <Navigate to="/chats" replace />;

  function submit(event: FormEvent) {
    event.preventDefault();
    update.mutate(values, {
      onSuccess: () => navigate("/chats"),
      onError: (error) => toast.error(errorText(error)),
    });
  }
  const set = (key: keyof typeof values) => (value: string) => setValues((v) => ({ ...v, [key]: value }));

  return (
    <div className="screen">
      <TitleBar title={t("profile.title")} backTo="/" />
      <main className="screen__body profile-form">
        {video && (
          <video className="profile-form__video" src={video} controls playsInline preload="metadata">
            <track kind="captions" />
          </video>
        )}
        <p className="profile-form__intro">{t("profile.intro")}</p>
        <form onSubmit={submit} className="profile-form__fields">
          <TextField
            label={t("profile.name")}
            value={values.name}
            onChange={(e) => set("name")(e.target.value)}
            autoComplete="name"
          />
          <TextField
            label={t("profile.city")}
            value={values.city}
            onChange={(e) => set("city")(e.target.value)}
            autoComplete="address-level2"
          />
          <fieldset className="profile-form__choices">
            <legend>{t("profile.gender")}</legend>
            {GENDERS.map((g) => (
              <label key={g} className={`chip${values.gender === g ? " chip--on" : ""}`}>
                <input type="radio" name="gender" value={g} checked={values.gender === g} onChange={() => set("gender")(g)} />
                {g === "Male" ? t("profile.male") : t("profile.female")}
              </label>
            ))}
          </fieldset>
          <fieldset className="profile-form__choices">
            <legend>{t("profile.ageGroup")}</legend>
            {AGE_GROUPS.map((a) => (
              <label key={a} className={`chip${values.ageGroup === a ? " chip--on" : ""}`}>
                <input
                  type="radio"
                  name="ageGroup"
                  value={a}
                  checked={values.ageGroup === a}
                  onChange={() => set("ageGroup")(a)}
                />
                <span className="ltr-digits">{t(`profile.ages.${a}` as "profile.ages.51+")}</span>
              </label>
            ))}
          </fieldset>
          <SubmitButton busy={update.isPending}>{t("profile.submit")}</SubmitButton>
        </form>
      </main>
    </div>
  );
}
