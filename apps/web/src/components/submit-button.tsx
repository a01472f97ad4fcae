import type { ButtonHTMLAttributes } from "react";
import { Spinner } from "./spinner.tsx";

/** A submit button that shows a spinner and refuses clicks while busy (spec section 2). */
export function SubmitButton({
  busy,
  children,
  className,
  disabled,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { busy?: boolean }) {
  return (
    <button
      {...rest}
      type="submit"
      className={`button button--primary ${className ?? ""}`}
      disabled={busy || disabled}
      aria-busy={busy}
    >
      {busy ? <Spinner size={22} /> : children}
    </button>
  );
}
