import { CONTACT_GENDERS } from "@hikaya/contracts";
import { type FormEvent, useId, useRef, useState } from "react";
import { CountrySelect } from "../../components/country-select.tsx";
import { TextField } from "../../components/form-fields.tsx";
import { SubmitButton } from "../../components/submit-button.tsx";
import { TitleBar } from "../../components/title-bar.tsx";
import { findCountry } from "../../lib/countries.ts";
import { errorText } from "../../lib/errors.ts";
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
  const ids = useId();
  const [name, setName] = useState("");
  const [phone, setPhone] = useState("");
  const [city, setCity] = useState("");
  const [country, setCountry] = useState<string | null>(null);
  const [gender, setGender] = useState<Gender>("Not specified");
  const [message, setMessage] = useState("");
  const [invalid, setInvalid] = useState(false);
  const [busy, setBusy] = useState(false);
  /**
   * The key of the last form sent and what it said: sending the same form again (the answer was lost with the
   * connection) reuses the key, so the server stores it once; a changed form is a new submission with a new key.
   */
  const lastSent = useRef<{ form: string; key: string } | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim() || !message.trim()) {
      setInvalid(true);
      toast.error(t("contact.required"), { toastId: "contact-required" });
      return;
    }
    setInvalid(false);
    setBusy(true);
    const form = {
      name: name.trim(),
      message: message.trim(),
      phone: phone.trim() || undefined,
      city: city.trim() || undefined,
      country: findCountry(country)?.name,
      gender,
    };
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

  const nameMissing = invalid && !name.trim();
  const messageMissing = invalid && !message.trim();

  return (
    <main className="screen info-screen">
      <TitleBar title={t("contact.title")} backTo="/" />
      <div className="screen__body">
        <p className="info-screen__intro">{t("contact.intro")}</p>
        <form className="info-form" onSubmit={submit} noValidate>
          <TextField
            label={t("contact.name")}
            name="name"
            autoComplete="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={nameMissing ? t("contact.required") : null}
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
          />
          <TextField
            label={t("contact.city")}
            name="city"
            autoComplete="address-level2"
            value={city}
            onChange={(e) => setCity(e.target.value)}
          />
          <CountrySelect label={t("contact.country")} value={country} onChange={setCountry} />
          <div className="field">
            <label htmlFor={`${ids}-gender`}>{t("contact.gender")}</label>
            <select id={`${ids}-gender`} className="input" value={gender} onChange={(e) => setGender(e.target.value as Gender)}>
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
              id={`${ids}-message`}
              className="input info-form__message"
              rows={5}
              value={message}
              aria-invalid={messageMissing || undefined}
              aria-describedby={messageMissing ? `${ids}-message-error` : undefined}
              onChange={(e) => setMessage(e.target.value)}
            />
            {messageMissing && (
              <p className="field__error" id={`${ids}-message-error`}>
                {t("contact.required")}
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
