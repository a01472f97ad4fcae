import {
  type ChangeEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type RefObject,
  useEffect,
  useId,
  useRef,
  useState,
} from "react";
import { useTranslation } from "../lib/i18n.ts";

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "className">;

/**
 * What the box held when React took a prerendered page over: typed before the scripts arrived, or put back by the
 * server with a page it showed again (a form posted without scripts). React keeps such a value while hydrating but
 * not past the next render, so it is handed to the form once, as the change it was.
 */
export function useValueTypedBeforeScripts<E extends HTMLInputElement | HTMLTextAreaElement>(
  ref: RefObject<E | null>,
  value: unknown,
  onChange: ((event: ChangeEvent<E>) => void) | undefined,
) {
  const first = useRef({ value, onChange });
  useEffect(() => {
    const box = ref.current;
    const { value: rendered, onChange: change } = first.current;
    if (box && change && typeof rendered === "string" && box.value !== rendered)
      change({ target: box, currentTarget: box } as ChangeEvent<E>);
  }, [ref]);
}

/** A labelled input with its error message announced and tied to it (aria-describedby). */
export function TextField({
  label,
  error,
  hint,
  end,
  ltr,
  ...input
}: InputProps & { label: ReactNode; error?: string | null; hint?: ReactNode; end?: ReactNode; ltr?: boolean }) {
  const id = useId();
  const box = useRef<HTMLInputElement>(null);
  useValueTypedBeforeScripts(box, input.value, input.onChange);
  const described = [error ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className={`field__control${end ? " field__control--with-end" : ""}`}>
        <input
          ref={box}
          id={id}
          className={`input${ltr ? " input--ltr" : ""}`}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          {...input}
        />
        {end}
      </div>
      {hint && (
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field__error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A password input with a show/hide toggle (spec section 2). */
export function PasswordField(props: InputProps & { label: ReactNode; error?: string | null }) {
  const { t } = useTranslation();
  const [visible, setVisible] = useState(false);
  return (
    <TextField
      {...props}
      type={visible ? "text" : "password"}
      ltr
      end={
        <button
          type="button"
          className="field__toggle"
          aria-pressed={visible}
          aria-label={visible ? t("password.hide") : t("password.show")}
          onClick={() => setVisible((v) => !v)}
        >
          <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
            <path
              d="M2 12s3.6-7 10-7 10 7 10 7-3.6 7-10 7S2 12 2 12z"
              fill="none"
              stroke="currentColor"
              strokeWidth="1.8"
              strokeLinejoin="round"
            />
            <circle cx="12" cy="12" r="3" fill="none" stroke="currentColor" strokeWidth="1.8" />
            {visible && <path d="M4 4l16 16" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" />}
          </svg>
        </button>
      }
    />
  );
}
