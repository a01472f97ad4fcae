import { CONTACT_GENDERS, type ContactSubmissionBody, contactSubmissionBodySchema } from "@hikaya/contracts";
import { type ChangeEvent, type FormEvent, useId, useRef, useState } from "react";
import { CountrySelect } from "../../components/country-select.tsx";
import { TextField, useValueTypedBeforeScripts } from "../../components/form-fields.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { TitleBar } from "../../components/title-bar.tsx";
import { findCountry } from "../../lib/countries.ts";
import { errorText } from "../../lib/errors.ts";
import { fieldProblems, useProblemText } from "../../lib/form-rules.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { toast } from "../../lib/toast.tsx";
import { submitContact } from "./api/info-api.ts";
import "../../components/form-fields.css";
import "./info.css";

type Gender = (typeof CONTACT_GENDERS)[number];
const GENDER_KEYS = { Male: "male", Female: "female", "Not specified": "notSpecified" } as const;

/**
 * A fresh idempotency key: 128 random bits in hex. getRandomValues, not randomUUID, because randomUUID exists only
 * on secure origins and the app is also opened over plain http on a local network.
 */
const newIdempotencyKey = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");

/** Contact Us: name, phone, city, country, gender (default 'Not specified'), message. */
export function ContactPage() {
  const { t } = useTranslation("info");
  const problemText = useProblemText();
  const ids = useId();
  const [name, setName] = useState("");
  const [phone, setPhone] = useState("");
  const [city, setCity] = useState("");
  const [country, setCountry] = useState<string | null>(null);
  const [gender, setGender] = useState<Gender>("Not specified");
  const [message, setMessage] = useState("");
  const [errors, setErrors] = useState<Partial<Record<keyof ContactSubmissionBody, string | null>>>({});
  const [busy, setBusy] = useState(false);
  /**
   * The key of the last form sent and what it said: sending the same form again (the answer was lost with the
   * connection) reuses the key, so the server stores it once; a changed form is a new submission with a new key.
   */
  const lastSent = useRef<{ form: string; key: string } | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const form = {
      name: name.trim(),
      message: message.trim(),
      phone: phone.trim() || undefined,
      city: city.trim() || undefined,
      country: findCountry(country)?.name,
      gender,
    };
    // The server's own rules (packages/contracts): a missing name or message, and each field's length limit.
    const problems = fieldProblems(contactSubmissionBodySchema, form);
    const found = {
      name: problemText(problems.name, t("contact.name"), t("contact.required")),
      phone: problemText(problems.phone, t("contact.phone"), t("contact.required")),
      city: problemText(problems.city, t("contact.city"), t("contact.required")),
      message: problemText(problems.message, t("contact.message"), t("contact.required")),
    };
    setErrors(found);
    const first = Object.values(found).find(Boolean);
    if (first) {
      toast.error(first, { toastId: `contact-${first}` });
      return;
    }
    setBusy(true);
    const formText = JSON.stringify(form);
    if (lastSent.current?.form !== formText) lastSent.current = { form: formText, key: newIdempotencyKey() };
    try {
      await submitContact({ ...form, idempotencyKey: lastSent.current.key });
      lastSent.current = null;
      toast.success(t("contact.success"));
      setName("");
      setPhone("");
      setCity("");
      setMessage("");
      setGender("Not specified");
    } catch (error) {
      toast.error(t("contact.failed", { message: errorText(error) }));
    } finally {
      setBusy(false);
    }
  };

  const messageError = errors.message;
  const messageBox = useRef<HTMLTextAreaElement>(null);
  const onMessage = (event: ChangeEvent<HTMLTextAreaElement>) => setMessage(event.target.value);
  useValueTypedBeforeScripts(messageBox, message, onMessage);

  return (
    <main className="screen info-screen">
      <TitleBar title={t("contact.title")} backTo="/" />
      <div className="screen__body">
        <p className="info-screen__intro">{t("contact.intro")}</p>
        <form className="info-form" method="post" action="/contact" onSubmit={submit} noValidate>
          <TextField
            label={t("contact.name")}
            name="name"
            autoComplete="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={errors.name}
          />
          <TextField
            label={t("contact.phone")}
            name="phone"
            type="tel"
            inputMode="tel"
            autoComplete="tel"
            ltr
            value={phone}
            onChange={(e) => setPhone(e.target.value)}
            error={errors.phone}
          />
          <TextField
            label={t("contact.city")}
            name="city"
            autoComplete="address-level2"
            value={city}
            onChange={(e) => setCity(e.target.value)}
            error={errors.city}
          />
          <CountrySelect label={t("contact.country")} name="country" value={country} onChange={setCountry} />
          <div className="field">
            <label htmlFor={`${ids}-gender`}>{t("contact.gender")}</label>
            <select
              id={`${ids}-gender`}
              name="gender"
              className="input"
              value={gender}
              onChange={(e) => setGender(e.target.value as Gender)}
            >
              {CONTACT_GENDERS.map((g) => (
                <option key={g} value={g}>
                  {t(`contact.genders.${GENDER_KEYS[g]}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${ids}-message`}>{t("contact.message")}</label>
            <textarea
              ref={messageBox}
              id={`${ids}-message`}
              name="message"
              className="input info-form__message"
              rows={5}
              value={message}
              aria-invalid={messageError ? true : undefined}
              aria-describedby={messageError ? `${ids}-message-error` : undefined}
              onChange={onMessage}
            />
            {messageError && (
              <p className="field__error" id={`${ids}-message-error`}>
                {messageError}
              </p>
            )}
          </div>
          <SubmitButton busy={busy} className="button--block">
            {t("contact.submit")}
          </SubmitButton>
        </form>
      </div>
    </main>
  );
}
