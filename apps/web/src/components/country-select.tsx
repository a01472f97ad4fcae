import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from "react";
import { type Country, countryName, findCountry, orderedCountries, pinnedCodes, searchCountries } from "../lib/countries.ts";
import { detectCountry } from "../lib/geo.ts";
import { currentLanguage, useTranslation } from "../lib/i18n.ts";
import { CountryFlag } from "./country-flag.tsx";
import "./country-select.css";

export interface CountrySelectProps {
  label: string;
  value: string | null;
  onChange(code: string): void;
  /** Shown under the dropdown, which turns red (spec section 5: 'Select country'). */
  error?: string | null;
  /** Pre-select from the visitor's location when nothing is chosen yet. */
  detect?: boolean;
  /**
   * The field's name in a form that posts without scripts (a prerendered screen): a plain <select> in <noscript>
   * stands in for the dropdown, which needs scripts to open.
   */
  name?: string;
}

/**
 * A searchable country dropdown (spec sections 3 and 9): a button that opens a 340 px list with a
 * search box. The search box is an ARIA combobox driving a listbox, so it works with the keyboard
 * (arrows, Home/End, Enter, Escape) and announces itself to screen readers.
 */
export function CountrySelect({ label, value, onChange, error, detect = true, name }: CountrySelectProps) {
  const { t } = useTranslation();
  const language = currentLanguage();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const search = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const selected = findCountry(value);
  const invalid = Boolean(error);
  const errorId = `${id}-error`;

  const all = useMemo(() => orderedCountries(language), [language]);
  const shown = useMemo(() => searchCountries(all, query), [all, query]);
  // A line under the pinned countries while the whole list shows.
  const lastPinned = query.trim() ? -1 : pinnedCodes(language).length - 1;

  const latest = useRef({ value, onChange });
  latest.current = { value, onChange };
  useEffect(() => {
    if (!detect || latest.current.value) return;
    let cancelled = false;
    void detectCountry().then((code) => {
      if (!cancelled && code && !latest.current.value) latest.current.onChange(code);
    });
    return () => {
      cancelled = true;
    };
  }, [detect]);

  useEffect(() => {
    if (!open) return;
    const close = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", close);
    return () => document.removeEventListener("pointerdown", close);
  }, [open]);

  useEffect(() => {
    if (!open) return;
    search.current?.focus();
  }, [open]);

  useEffect(() => {
    if (!open) return;
    list.current?.querySelector<HTMLElement>(`[data-index="${active}"]`)?.scrollIntoView({ block: "nearest" });
  }, [active, open]);

  const openList = () => {
    const index = selected ? all.indexOf(selected) : 0;
    setQuery("");
    setActive(Math.max(0, index));
    setOpen(true);
  };

  const choose = (country: Country) => {
    onChange(country.code);
    setOpen(false);
    trigger.current?.focus();
  };

  const onSearchKey = (event: KeyboardEvent<HTMLInputElement>) => {
    const last = shown.length - 1;
    if (event.key === "ArrowDown") setActive((i) => Math.min(last, i + 1));
    else if (event.key === "ArrowUp") setActive((i) => Math.max(0, i - 1));
    else if (event.key === "Home" && event.ctrlKey) setActive(0);
    else if (event.key === "End" && event.ctrlKey) setActive(last);
    else if (event.key === "PageDown") setActive((i) => Math.min(last, i + 8));
    else if (event.key === "PageUp") setActive((i) => Math.max(0, i - 8));
    else if (event.key === "Enter") {
      const country = shown[active];
      if (country) choose(country);
    } else if (event.key === "Escape" || event.key === "Tab") {
      setOpen(false);
      if (event.key === "Escape") trigger.current?.focus();
      else return;
    } else return;
    event.preventDefault();
  };

  const labelId = `${id}-label`;
  const listId = `${id}-list`;
  const optionId = (index: number) => `${id}-option-${index}`;

  return (
    <div className={`country-select${invalid ? " country-select--invalid" : ""}`} ref={root}>
      <span className="country-select__label" id={labelId}>
        {label}
      </span>
      <button
        ref={trigger}
        type="button"
        id={`${id}-button`}
        className="input country-select__trigger"
        aria-haspopup="listbox"
        aria-expanded={open}
        aria-labelledby={`${labelId} ${id}-button`}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? errorId : undefined}
        onClick={() => (open ? setOpen(false) : openList())}
        onKeyDown={(event) => {
          if (!open && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
            event.preventDefault();
            openList();
          }
        }}
      >
        {selected ? (
          <>
            <CountryFlag code={selected.code} />
            <span className="country-select__name">{countryName(selected, language)}</span>
            <span className="country-select__dial ltr">{selected.dialCode}</span>
          </>
        ) : (
          <span className="country-select__placeholder">{t("countrySelect.placeholder")}</span>
        )}
        <svg className="country-select__chevron" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
          <path d="M6 9l6 6 6-6" fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
        </svg>
      </button>
      {name && (
        <noscript>
          <select name={name} className="input country-select__native" aria-labelledby={labelId} defaultValue="">
            <option value="">{t("countrySelect.placeholder")}</option>
            {all.map((country) => (
              <option key={country.code} value={country.code}>
                {`${countryName(country, language)} ${country.dialCode}`}
              </option>
            ))}
          </select>
        </noscript>
      )}
      {open && (
        <div className="country-select__popup">
          <input
            ref={search}
            className="input country-select__search"
            type="search"
            role="combobox"
            aria-label={t("countrySelect.search")}
            aria-expanded="true"
            aria-controls={listId}
            aria-autocomplete="list"
            aria-activedescendant={shown[active] ? optionId(active) : undefined}
            placeholder={t("countrySelect.search")}
            value={query}
            autoComplete="off"
            onChange={(event) => {
              setQuery(event.target.value);
              setActive(0);
            }}
            onKeyDown={onSearchKey}
          />
          <div ref={list} className="country-select__list" id={listId} role="listbox" aria-labelledby={labelId}>
            {shown.map((country, index) => (
              // biome-ignore lint/a11y/useKeyWithClickEvents: the combobox input above handles the keyboard for the listbox.
              <div
                key={country.code}
                tabIndex={-1}
                id={optionId(index)}
                data-index={index}
                role="option"
                aria-selected={country.code === value}
                className={`country-select__option${index === active ? " country-select__option--active" : ""}${index === lastPinned ? " country-select__option--pinned-end" : ""}`}
                onPointerMove={() => setActive(index)}
                onClick={() => choose(country)}
              >
                <CountryFlag code={country.code} />
                <span className="country-select__name">{countryName(country, language)}</span>
                <span className="country-select__dial ltr">{country.dialCode}</span>
              </div>
            ))}
          </div>
          {shown.length === 0 && (
            <p className="country-select__empty" role="status">
              {t("countrySelect.none")}
            </p>
          )}
        </div>
      )}
      {error && (
        <p className="field__error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
