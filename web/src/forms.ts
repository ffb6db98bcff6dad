// Checks a form before it is sent, in plain words naming each field, every invalid field at once. The result is the
// same ApiError a 422 from the server gives, so a form shows both the same way: each message next to its field.
import { type FormEvent, type RefObject, useEffect, useRef, useState } from "react";
import { ApiError } from "./api.ts";

/** A check of one field's text: the message in words, or undefined when the value is fine. */
export type Check = (value: string, label: string) => string | undefined;

export const required: Check = (value, label) => (value.trim() === "" ? `${label} is required` : undefined);

export const maxLength =
  (limit: number): Check =>
  (value, label) =>
    value.length > limit ? `${label} is too long: ${value.length} characters, at most ${limit}` : undefined;

export const email: Check = (value, label) =>
  value.trim() !== "" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim())
    ? `${label} must be an email address, like ada@example.com`
    : undefined;

export const httpUrl: Check = (value, label) => {
  if (value.trim() === "") return undefined;
  try {
    const url = new URL(value.trim());
    if (url.protocol === "http:" || url.protocol === "https:") return undefined;
  } catch {}
  return `${label} must be a web address starting with https:// or http://`;
};

export const wholeNumber =
  (min: number, max: number): Check =>
  (value, label) => {
    const number = Number(value);
    return value.trim() === "" || !Number.isInteger(number) || number < min || number > max
      ? `${label} must be a whole number from ${min} to ${max}`
      : undefined;
  };

export const colour: Check = (value, label) =>
  /^#[0-9a-f]{6}$/i.test(value) ? undefined : `${label} must be a colour written #RRGGBB, like #D14343`;

export const modelName: Check = (value, label) =>
  value.trim() !== "" && !/^[a-z0-9][a-z0-9_-]*\/\S+$/i.test(value.trim())
    ? `${label} must look like provider/model, e.g. openai/gpt-4o-mini`
    : undefined;

export const json: Check = (value, label) => {
  if (value.trim() === "") return undefined;
  try {
    JSON.parse(value);
    return undefined;
  } catch {
    return `${label} is not valid JSON`;
  }
};

/** One field of a form: its API name, the label people see, its value and its checks. */
export interface FieldCheck {
  field: string;
  label: string;
  value: string;
  checks: Check[];
}

/** Every failed check, one message per field; undefined when the form is fine. */
function checkForm(fields: FieldCheck[]): ApiError | undefined {
  const messages: Record<string, string> = {};
  for (const { field, label, value, checks } of fields) {
    for (const check of checks) {
      const message = check(value, label);
      if (message) {
        messages[field] = message;
        break;
      }
    }
  }
  const list = Object.values(messages);
  return list.length === 0 ? undefined : new ApiError(422, list.join("; "), messages);
}

/** After a refused submit: the first field marked invalid gets the focus, so its message is read out. */
function useFocusInvalid(form: RefObject<HTMLFormElement | null>, error: unknown): void {
  useEffect(() => {
    if (error) form.current?.querySelector<HTMLElement>("[aria-invalid=true]")?.focus();
  }, [error, form]);
}

/**
 * A form's whole submit: its fields checked first (every invalid one at once, the first focused), then `send`; a
 * refusal of either is `error`, for the fields' messages. `busy` while it sends. Spread `props` on the <form>.
 */
export function useForm(options: {
  check?: (values: FormData) => FieldCheck[];
  send: (values: FormData, form: HTMLFormElement) => Promise<unknown>;
}) {
  const ref = useRef<HTMLFormElement>(null);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  useFocusInvalid(ref, error);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const values = new FormData(form);
    const invalid = checkForm(options.check?.(values) ?? []);
    if (invalid) {
      setError(invalid);
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await options.send(values, form);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { props: { ref, onSubmit, noValidate: true }, error, setError, busy };
}

/** A form field's text, "" when it is not there. */
export const text = (values: FormData, name: string): string => String(values.get(name) ?? "");
