import { changePasswordRequestSchema, type MessageChannel, phoneChangeRequestSchema } from "@hikaya/contracts";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { CountrySelect } from "../../components/country-select.tsx";
import { PasswordField } from "../../components/form-fields.tsx";
import { useRequireUser } from "../../components/require-user.ts";
import { SubmitButton } from "../../components/submit-button.tsx";
import { accountQuery, useAccount } from "../../lib/account.ts";
import { ApiError } from "../../lib/api-client.ts";
import { findCountryByCode } from "../../lib/countries.ts";
import { errorText, fieldError } from "../../lib/errors.ts";
import { fieldProblems, useProblemText } from "../../lib/form-rules.ts";
import { useTranslation } from "../../lib/i18n.ts";
import { Link } from "../../lib/router.tsx";
import { toast } from "../../lib/toast.tsx";
import { AccountPreferences } from "./account-preferences.tsx";
import { changePassword, startPhoneChange } from "./api/account-api.ts";
import { AuthScreen } from "./auth-screen.tsx";
import { DeleteAccount } from "./delete-account.tsx";
import { InstructionVideo } from "./instruction-video.tsx";
import { ChannelChoice, PendingPhoneChange } from "./phone-change.tsx";
import { PhoneField } from "./phone-field.tsx";

type Errors = Partial<Record<"country" | "phone" | "current" | "next", string | null>>;

/**
 * Edit profile (spec section 3: country, phoneNumber, oldPassword, newPassword; empty values left out).
 * A new phone number becomes the one the person signs in with only after the code sent to it is
 * verified; until then the screen says the change is pending. Below the form: the reminders and
 * WhatsApp answers, Change password, and deleting the account.
 */
export function EditProfilePage() {
  const { t } = useTranslation("account");
  const problemText = useProblemText();
  useRequireUser();
  const account = useAccount();
  const client = useQueryClient();
  const [country, setCountry] = useState<string | null>(null);
  const [phone, setPhone] = useState("");
  const [channel, setChannel] = useState<MessageChannel>("sms");
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  const stored = account.data?.phone ?? null;
  const storedCountry = findCountryByCode(stored?.countryCode ?? null);
  useEffect(() => {
    if (storedCountry) setCountry((c) => c ?? storedCountry.code);
  }, [storedCountry]);

  // A field's error goes as soon as the person changes that field.
  const edit =
    <T,>(set: (v: T) => void, field: keyof Errors) =>
    (value: T) => {
      set(value);
      setErrors((e) => (e[field] ? { ...e, [field]: null } : e));
    };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    // The requests' own schemas (packages/contracts): a new number with its country, a password change with both
    // boxes filled (a pair the screen asks for together), each within the limits the server keeps.
    const number = phone.trim()
      ? fieldProblems(phoneChangeRequestSchema, { country: country ?? "", phoneNumber: phone, channel })
      : {};
    const passwords =
      current || next ? fieldProblems(changePasswordRequestSchema, { oldPassword: current, newPassword: next }) : {};
    const found: Errors = {
      country: number.country ? t("validation.selectCountry") : null,
      phone: problemText(number.phoneNumber, t("fields.phone"), t("validation.phoneRequired")),
      current:
        next && !current
          ? t("validation.currentPasswordRequired")
          : problemText(passwords.oldPassword, t("fields.currentPassword"), t("validation.currentPasswordRequired")),
      next:
        current && !next
          ? t("validation.newPasswordRequired")
          : problemText(passwords.newPassword, t("fields.newPassword"), t("validation.newPasswordRequired")),
    };
    setErrors(found);
    const first = found.country ?? found.phone ?? found.current ?? found.next;
    if (first) {
      toast.error(first, { toastId: `edit-${first}` });
      return;
    }
    if (!phone.trim() && !(current && next)) {
      toast.info(t("edit.nothing"), { toastId: "edit-nothing" });
      return;
    }
    setBusy(true);
    try {
      if (current && next) {
        await changePassword({ oldPassword: current, newPassword: next }).catch((error: unknown) => {
          if (error instanceof ApiError && error.code === "incorrect_password")
            setErrors((e) => ({ ...e, current: errorText(error) }));
          throw error;
        });
        setCurrent("");
        setNext("");
      }
      if (phone.trim() && country) {
        const settings = await startPhoneChange({ country, phoneNumber: phone, channel }).catch((error: unknown) => {
          const refused = fieldError(error);
          if (refused?.field === "phoneNumber" || (error instanceof ApiError && error.code === "phone_in_use"))
            setErrors((e) => ({ ...e, phone: refused?.text ?? errorText(error) }));
          throw error;
        });
        client.setQueryData(accountQuery.queryKey, settings);
        setPhone("");
        toast.info(t("edit.phonePending"), { toastId: "edit-phone-pending" });
      } else {
        toast.success(t("edit.success"));
      }
    } catch (error) {
      toast.error(errorText(error));
    } finally {
      setBusy(false);
    }
  };

  const currentPhone = stored ? `${stored.countryCode} ${stored.phoneNumber}`.trim() : null;

  return (
    <AuthScreen title={t("edit.title")} heading={t("edit.heading")} intro={t("edit.intro")} backTo="/">
      {account.data?.pendingPhone && <PendingPhoneChange pending={account.data.pendingPhone} country={country} />}
      <form className="auth-form" method="post" onSubmit={submit} noValidate>
        <CountrySelect
          label={t("fields.country")}
          value={country}
          onChange={edit(setCountry, "country")}
          detect={false}
          error={errors.country}
        />
        <PhoneField
          country={country}
          value={phone}
          onChange={edit(setPhone, "phone")}
          current={currentPhone}
          error={errors.phone}
        />
        {phone.trim() && <ChannelChoice value={channel} onChange={setChannel} />}
        <PasswordField
          label={t("fields.currentPassword")}
          name="current-password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => edit(setCurrent, "current")(e.target.value)}
          error={errors.current}
        />
        <PasswordField
          label={t("fields.newPassword")}
          name="new-password"
          autoComplete="new-password"
          value={next}
          onChange={(e) => edit(setNext, "next")(e.target.value)}
          error={errors.next}
        />
        <SubmitButton busy={busy} className="button--block">
          {t("edit.submit")}
        </SubmitButton>
        <Link className="auth-form__link" to="/change-password">
          {t("edit.changePassword")}
        </Link>
      </form>
      {account.data && <AccountPreferences settings={account.data} />}
      <DeleteAccount />
      <InstructionVideo location="Edit Profile" label={t("edit.video")} />
    </AuthScreen>
  );
}
