import { type FormEvent, useCallback, useId, useState } from "react";
import { Link } from "react-router";
import {
  ApiError,
  api,
  type Environment,
  type OtpSettings,
  type OtpSettingsView,
  type Template,
} from "../api";
import { Allowed, ReadOnlyNote } from "../components/Allowed";
import { ErrorNotice, formErrors, Loading, SuccessNotice } from "../components/Feedback";
import { Field, FieldError } from "../components/Field";
import { PageHeader } from "../components/PageHeader";
import { otpCodeSlot } from "../dlt";
import { useEnvironment } from "../environment";
import { formatSeconds } from "../format";
import { useResource } from "../use-resource";

type NumericSetting =
  | "expiry_seconds"
  | "max_attempts"
  | "resend_cooldown_seconds"
  | "fallback_after_seconds"
  | "length";

const NUMERIC_SETTINGS: ReadonlyArray<{
  name: NumericSetting;
  label: string;
  min: number;
  max: number;
  unit: string;
  explain: string;
}> = [
  {
    name: "length",
    label: "Code length",
    min: 4,
    max: 10,
    unit: "digits",
    explain: "Digits in a generated code.",
  },
  {
    name: "expiry_seconds",
    label: "Code expiry",
    min: 10,
    max: 3600,
    unit: "seconds",
    explain: "How long a code can be verified.",
  },
  {
    name: "max_attempts",
    label: "Verification attempts",
    min: 1,
    max: 20,
    unit: "attempts",
    explain: "Wrong codes allowed before the OTP is locked.",
  },
  {
    name: "resend_cooldown_seconds",
    label: "Resend cooldown",
    min: 0,
    max: 600,
    unit: "seconds",
    explain: "Wait before the same number can be sent the code again.",
  },
  {
    name: "fallback_after_seconds",
    label: "Fallback after",
    min: 1,
    max: 120,
    unit: "seconds",
    explain: "Without a delivery report by then, the fallback channel sends the code.",
  },
];

const FIELDS = [
  ...NUMERIC_SETTINGS.map((setting) => setting.name),
  "sms_template_id",
  "sms_sender",
  "whatsapp_template",
  "whatsapp_language",
  "voice_caller_id",
  "test_numbers",
];

interface TestNumberRow {
  key: number;
  number: string;
  code: string;
}

interface FormState {
  numbers: Record<NumericSetting, string>;
  smsTemplateId: string;
  smsSender: string;
  whatsappTemplate: string;
  whatsappLanguage: string;
  voiceCallerId: string;
  testNumbers: TestNumberRow[];
}

let nextRowKey = 1;

function toFormState(settings: OtpSettings): FormState {
  return {
    numbers: {
      expiry_seconds: String(settings.expiry_seconds),
      max_attempts: String(settings.max_attempts),
      resend_cooldown_seconds: String(settings.resend_cooldown_seconds),
      fallback_after_seconds: String(settings.fallback_after_seconds),
      length: String(settings.length),
    },
    smsTemplateId: settings.sms_template_id ?? "",
    smsSender: settings.sms_sender ?? "",
    whatsappTemplate: settings.whatsapp_template ?? "",
    whatsappLanguage: settings.whatsapp_language,
    voiceCallerId: settings.voice_caller_id ?? "",
    testNumbers: Object.entries(settings.test_numbers).map(([number, code]) => ({
      key: nextRowKey++,
      number,
      code,
    })),
  };
}

/** The first numeric setting that is not a whole number in its range, as the server would report it. */
function checkNumbers(form: FormState): ApiError | undefined {
  for (const setting of NUMERIC_SETTINGS) {
    const value = Number(form.numbers[setting.name].trim() || Number.NaN);
    if (!Number.isInteger(value) || value < setting.min || value > setting.max) {
      return new ApiError(
        0,
        "invalid_request",
        `${setting.label} must be a whole number from ${setting.min} to ${setting.max}.`,
        setting.name,
      );
    }
  }
  return undefined;
}

function toSettings(form: FormState): OtpSettings {
  const number = (name: NumericSetting) => Number(form.numbers[name].trim());
  const testNumbers: Record<string, string> = {};
  for (const row of form.testNumbers) {
    if (row.number.trim() || row.code.trim()) testNumbers[row.number.trim()] = row.code.trim();
  }
  return {
    expiry_seconds: number("expiry_seconds"),
    max_attempts: number("max_attempts"),
    resend_cooldown_seconds: number("resend_cooldown_seconds"),
    fallback_after_seconds: number("fallback_after_seconds"),
    length: number("length"),
    sms_template_id: form.smsTemplateId || null,
    sms_sender: form.smsSender || null,
    whatsapp_template: form.whatsappTemplate.trim() || null,
    whatsapp_language: form.whatsappLanguage.trim(),
    // Spaces as people write numbers (+91 1601 234567) are not part of it.
    voice_caller_id: form.voiceCallerId.replace(/[\s-]/g, "") || null,
    test_numbers: testNumbers,
  };
}

export function OtpSettingsPage() {
  const { environment } = useEnvironment();
  const settings = useResource(
    useCallback((signal: AbortSignal) => api.getOtpSettings(environment, signal), [environment]),
  );
  const templates = useResource(useCallback((signal: AbortSignal) => api.listTemplates(signal), []));

  return (
    <>
      <PageHeader
        title="OTP settings"
        description={`How ${environment} passcodes are made, sent and checked. Live and sandbox have settings of their own.`}
      />
      <ErrorNotice error={settings.error ?? templates.error} />
      {settings.data && templates.data ? (
        <OtpSettingsForm
          key={environment}
          environment={environment}
          initial={settings.data}
          templates={templates.data.data}
        />
      ) : settings.loading || templates.loading ? (
        <Loading />
      ) : null}
    </>
  );
}

function OtpSettingsForm({
  environment,
  initial,
  templates,
}: {
  environment: Environment;
  initial: OtpSettingsView;
  templates: Template[];
}) {
  const [form, setForm] = useState<FormState>(() => toFormState(initial));
  const [view, setView] = useState<OtpSettingsView>(initial);
  const [error, setError] = useState<unknown>();
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const formId = useId();

  const change = (update: (current: FormState) => FormState) => {
    setForm(update);
    setSaved(false);
  };

  // Passcodes need a template with one placeholder that can hold the code; anything already chosen stays listed.
  const otpTemplates = templates.filter(
    (template) =>
      otpCodeSlot(template.placeholders) !== undefined || template.template_id === form.smsTemplateId,
  );
  const chosenTemplate = templates.find((template) => template.template_id === form.smsTemplateId);
  const codeSlot = chosenTemplate && otpCodeSlot(chosenTemplate.placeholders);
  const senderChoices = chosenTemplate?.senders ?? [];

  const onTemplateChange = (templateId: string) => {
    const template = templates.find((candidate) => candidate.template_id === templateId);
    change((current) => ({
      ...current,
      smsTemplateId: templateId,
      smsSender: template?.senders.includes(current.smsSender)
        ? current.smsSender
        : (template?.senders[0] ?? ""),
    }));
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const invalidNumber = checkNumbers(form);
    if (invalidNumber) {
      setError(invalidNumber);
      setSaved(false);
      return;
    }
    setSaving(true);
    setSaved(false);
    setError(undefined);
    try {
      const updated = await api.updateOtpSettings(environment, toSettings(form));
      setForm(toFormState(updated));
      setView(updated);
      setSaved(true);
    } catch (caught) {
      setError(caught);
    } finally {
      setSaving(false);
    }
  };

  const errors = formErrors(error, FIELDS);
  return (
    <form className="form settings-form" onSubmit={onSubmit} noValidate aria-labelledby={`${formId}-codes`}>
      <section className="card" aria-labelledby={`${formId}-codes`}>
        <h2 id={`${formId}-codes`}>Codes and limits</h2>
        <div className="form-grid">
          {NUMERIC_SETTINGS.map((setting) => (
            <Field
              key={setting.name}
              label={setting.label}
              error={errors.field[setting.name]}
              hint={`${setting.explain} ${setting.min}–${setting.max} ${setting.unit}${
                setting.unit === "seconds" && setting.max >= 600
                  ? ` (up to ${formatSeconds(setting.max)})`
                  : ""
              }.`}
            >
              {(control) => (
                <div className="input-with-unit">
                  <input
                    {...control}
                    type="number"
                    inputMode="numeric"
                    className="mono"
                    min={setting.min}
                    max={setting.max}
                    step={1}
                    value={form.numbers[setting.name]}
                    onChange={(event) =>
                      change((current) => ({
                        ...current,
                        numbers: { ...current.numbers, [setting.name]: event.target.value },
                      }))
                    }
                  />
                  <span className="unit" aria-hidden="true">
                    {setting.unit}
                  </span>
                </div>
              )}
            </Field>
          ))}
        </div>
      </section>

      <section className="card" aria-labelledby={`${formId}-sms`}>
        <h2 id={`${formId}-sms`}>SMS</h2>
        <p className="muted section-intro">
          SMS passcodes go out on a registered DLT template with one placeholder for the code (as approved on
          the portal: <span className="mono">{"{#var#}"}</span>, <span className="mono">{"{#numeric#}"}</span>{" "}
          or a name of your own), under one of its senders.
          {otpTemplates.length === 0 ? (
            <>
              {" "}
              No such template yet: <Link to="/templates">add one</Link>, e.g. “Your verification code is{" "}
              <span className="mono">{"{#numeric#}"}</span>. Do not share it.”
            </>
          ) : null}
        </p>
        <div className="form-grid form-grid-wide">
          <Field
            label="SMS template"
            error={errors.field.sms_template_id}
            hint={
              codeSlot ? (
                <>
                  The code goes in <span className="mono">{`{#${codeSlot}#}`}</span>.
                </>
              ) : undefined
            }
          >
            {(control) => (
              <select
                {...control}
                value={form.smsTemplateId}
                onChange={(event) => onTemplateChange(event.target.value)}
              >
                <option value="">None (SMS passcodes off)</option>
                {otpTemplates.map((template) => (
                  <option key={template.template_id} value={template.template_id}>
                    {template.name} ({template.template_id})
                    {template.status === "inactive" ? " (inactive)" : ""}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="SMS sender" error={errors.field.sms_sender}>
            {(control) => (
              <select
                {...control}
                value={form.smsSender}
                disabled={!chosenTemplate}
                onChange={(event) => change((current) => ({ ...current, smsSender: event.target.value }))}
              >
                {chosenTemplate ? null : <option value="">Choose a template first</option>}
                {form.smsSender && !senderChoices.includes(form.smsSender) ? (
                  <option value={form.smsSender}>{form.smsSender}</option>
                ) : null}
                {senderChoices.map((sender) => (
                  <option key={sender} value={sender}>
                    {sender}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
      </section>

      <section className="card" aria-labelledby={`${formId}-whatsapp`}>
        <h2 id={`${formId}-whatsapp`}>WhatsApp</h2>
        <p className="muted section-intro">
          The approved authentication template of your WhatsApp Business account. The sandbox needs none.
        </p>
        <div className="form-grid">
          <Field label="WhatsApp template name" error={errors.field.whatsapp_template}>
            {(control) => (
              <input
                {...control}
                className="mono"
                autoComplete="off"
                placeholder="otp_login"
                value={form.whatsappTemplate}
                onChange={(event) =>
                  change((current) => ({ ...current, whatsappTemplate: event.target.value }))
                }
              />
            )}
          </Field>
          <Field label="WhatsApp language" error={errors.field.whatsapp_language} hint="e.g. en, en_US, hi">
            {(control) => (
              <input
                {...control}
                className="mono"
                autoComplete="off"
                value={form.whatsappLanguage}
                onChange={(event) =>
                  change((current) => ({ ...current, whatsappLanguage: event.target.value }))
                }
              />
            )}
          </Field>
        </div>
      </section>

      <VoiceCallerId
        view={view}
        value={form.voiceCallerId}
        error={errors.field.voice_caller_id}
        onChange={(voiceCallerId) => change((current) => ({ ...current, voiceCallerId }))}
      />

      <TestNumbers
        rows={form.testNumbers}
        error={errors.field.test_numbers}
        onChange={(testNumbers) => change((current) => ({ ...current, testNumbers }))}
      />

      <div className="form-footer">
        <ErrorNotice error={errors.form} />
        {saved ? <SuccessNotice>OTP settings saved for {environment}.</SuccessNotice> : null}
        <Allowed route="PATCH /dashboard/api/otp-settings" otherwise={<ReadOnlyNote what="OTP settings" />}>
          <button type="submit" className="button button-primary" disabled={saving}>
            {saving ? "Saving…" : "Save settings"}
          </button>
        </Allowed>
      </div>
    </form>
  );
}

/** The number voice OTPs call from, and the 1600-series rule of BFSI accounts (TRAI, November 2025). */
function VoiceCallerId({
  view,
  value,
  error,
  onChange,
}: {
  view: OtpSettingsView;
  value: string;
  error: string | undefined;
  onChange(value: string): void;
}) {
  const titleId = useId();
  return (
    <section className="card" aria-labelledby={titleId}>
      <div className="card-header">
        <h2 id={titleId}>Voice</h2>
        {view.bfsi ? (
          <span className="badge badge-blue" title="Set by the operator">
            BFSI account
          </span>
        ) : null}
      </div>
      <p className="muted section-intro">
        {view.bfsi
          ? "This account is marked BFSI (a bank, NBFC, broker or insurer), so under TRAI's rules its voice passcodes may call only from a 1600-series number (+911600… or +911601…). The operator sets this mark."
          : "Voice passcodes are read out by a call from this number. This account is not marked BFSI; banks, NBFCs, brokers and insurers (BFSI accounts, marked by the operator) may call only from a 1600-series number (+911600… or +911601…)."}
      </p>
      {view.voice_refusal ? (
        <p className="notice notice-warning" role="status">
          {view.voice_refusal}
        </p>
      ) : null}
      <div className="form-grid">
        <Field
          label="Voice caller ID"
          error={error}
          hint={
            view.default_voice_caller_id
              ? `E.164, e.g. +911601234567. Empty: calls come from the server's number, ${view.default_voice_caller_id}.`
              : "E.164, e.g. +911601234567. Empty: calls come from the server's default number."
          }
        >
          {(control) => (
            <input
              {...control}
              className="mono"
              inputMode="tel"
              autoComplete="off"
              placeholder={view.default_voice_caller_id ?? "+911601234567"}
              value={value}
              onChange={(event) => onChange(event.target.value)}
            />
          )}
        </Field>
      </div>
    </section>
  );
}

function TestNumbers({
  rows,
  error,
  onChange,
}: {
  rows: TestNumberRow[];
  error: string | undefined;
  onChange(rows: TestNumberRow[]): void;
}) {
  const titleId = useId();
  const update = (key: number, field: "number" | "code", value: string) =>
    onChange(rows.map((row) => (row.key === key ? { ...row, [field]: value } : row)));

  return (
    <section className="card" aria-labelledby={titleId}>
      <div className="card-header">
        <h2 id={titleId}>Test numbers</h2>
        <button
          type="button"
          className="button button-small"
          onClick={() => onChange([...rows, { key: nextRowKey++, number: "", code: "" }])}
        >
          Add test number
        </button>
      </div>
      <p className="muted section-intro">
        Numbers with a fixed code, for app store reviewers: nothing is delivered or charged, and only that
        code verifies.
      </p>
      {rows.length === 0 ? <p className="muted small">No test numbers.</p> : null}
      {rows.map((row, index) => (
        <div key={row.key} className="test-number-row">
          <Field label={`Test number ${index + 1}`}>
            {(control) => (
              <input
                {...control}
                className="mono"
                inputMode="tel"
                placeholder="+919876543210"
                value={row.number}
                onChange={(event) => update(row.key, "number", event.target.value)}
              />
            )}
          </Field>
          <Field label={`Code ${index + 1}`}>
            {(control) => (
              <input
                {...control}
                className="mono"
                inputMode="numeric"
                placeholder="123456"
                value={row.code}
                onChange={(event) => update(row.key, "code", event.target.value)}
              />
            )}
          </Field>
          <button
            type="button"
            className="button button-small button-ghost-danger"
            aria-label={`Remove test number ${index + 1}`}
            onClick={() => onChange(rows.filter((candidate) => candidate.key !== row.key))}
          >
            Remove
          </button>
        </div>
      ))}
      <FieldError message={error} />
    </section>
  );
}
