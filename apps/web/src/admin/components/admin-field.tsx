import type { InputHTMLAttributes } from "react";

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id">;

/**
 * One labelled input of a console form. The id is the caller's: some pages keep fixed ids (the sign-in and join
 * pages' `admin-email`, `join-phone`, …), others make them with useId. `className` adds to `admin-input` (e.g. `ltr`).
 */
export function AdminField({ id, label, className, ...input }: InputProps & { id: string; label: string }) {
  return (
    <div className="admin-field">
      <label htmlFor={id}>{label}</label>
      <input id={id} className={className ? `admin-input ${className}` : "admin-input"} {...input} />
    </div>
  );
}
