import { type FormEvent, useCallback, useState } from "react";
import { ApiError, api, type InvitedMember, ROLES, type Role, type TeamMember } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Dialog } from "../components/Dialog";
import { ErrorNotice, Loading, SuccessNotice } from "../components/Feedback";
import { Field } from "../components/Field";
import { PageHeader } from "../components/PageHeader";
import { formatDateTime, formatIndiaTime } from "../format";
import { useSignedIn } from "../session";
import { useCopySecret } from "../use-copy-secret";
import { useResource } from "../use-resource";

const ROLE_SUMMARY: Record<Role, string> = {
  owner: "Everything, members and owners included",
  admin: "Everything but owners",
  developer: "Keys, webhooks, templates and senders, OTP settings, messages, sandbox",
  finance: "Balances, transactions, the low-balance alert; messages read-only",
  viewer: "Reads everything that holds no secret",
};

/** Settings → Team: who signs in to this account, with which role; invites and removals. */
export function TeamPage() {
  const { member: me } = useSignedIn();
  const members = useResource(useCallback((signal: AbortSignal) => api.listMembers(signal), []));
  const [inviting, setInviting] = useState(false);
  const [invited, setInvited] = useState<InvitedMember | undefined>();
  const [removing, setRemoving] = useState<TeamMember | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [error, setError] = useState<Error | undefined>();

  const manages = (target: Role) => me.role === "owner" || target !== "owner";
  const roleChoices = ROLES.filter(manages);

  const changeRole = async (target: TeamMember, role: Role) => {
    setError(undefined);
    setNotice(undefined);
    try {
      const updated = await api.changeMemberRole(target.id, role);
      members.setData((current) =>
        current ? { data: current.data.map((m) => (m.id === updated.id ? updated : m)) } : current,
      );
      setNotice(`${updated.email} is now ${updated.role}.`);
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
    }
  };

  return (
    <>
      <PageHeader
        title="Team"
        description="Everyone who signs in to this account's console, and what their role lets them do. The server checks the role on every request."
        actions={
          <button type="button" className="button button-primary" onClick={() => setInviting(true)}>
            Invite member
          </button>
        }
      />
      {notice ? <SuccessNotice>{notice}</SuccessNotice> : null}
      <ErrorNotice error={error ?? members.error} />
      <section className="card card-flush" aria-label="Members">
        {members.loading && !members.data ? <Loading /> : null}
        {members.data ? (
          <div className="table-wrap">
            <table className="table table-stack">
              <thead>
                <tr>
                  <th scope="col">Member</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last sign-in</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {members.data.data.map((member) => (
                  <tr key={member.id}>
                    <td data-label="Member" className="break-anywhere">
                      {member.email}
                      {member.id === me.id ? <span className="muted small"> (you)</span> : null}
                    </td>
                    <td data-label="Role">
                      {manages(member.role) ? (
                        <select
                          aria-label={`Role of ${member.email}`}
                          value={member.role}
                          onChange={(event) => void changeRole(member, event.target.value as Role)}
                        >
                          {roleChoices.map((role) => (
                            <option key={role} value={role}>
                              {role}
                            </option>
                          ))}
                        </select>
                      ) : (
                        member.role
                      )}
                    </td>
                    <td data-label="Status">
                      <span className={`badge ${member.status === "active" ? "badge-green" : "badge-amber"}`}>
                        {member.status === "active" ? "Active" : "Invited"}
                      </span>
                    </td>
                    <td data-label="Last sign-in" className="nowrap">
                      {member.last_sign_in_at ? formatIndiaTime(member.last_sign_in_at) : "Never"}
                    </td>
                    <td data-label="Actions">
                      {manages(member.role) ? (
                        <button
                          type="button"
                          className="button button-ghost"
                          onClick={() => setRemoving(member)}
                        >
                          Remove
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>

      <section className="card" aria-labelledby="roles-title">
        <h2 id="roles-title">Roles</h2>
        <dl className="role-list">
          {ROLES.map((role) => (
            <div key={role}>
              <dt>{role}</dt>
              <dd>{ROLE_SUMMARY[role]}</dd>
            </div>
          ))}
        </dl>
      </section>

      {inviting ? (
        <Dialog title="Invite a member" onClose={() => setInviting(false)}>
          <InviteForm
            roles={roleChoices}
            onCancel={() => setInviting(false)}
            onInvited={(member) => {
              setInviting(false);
              setInvited(member);
              members.reload();
            }}
          />
        </Dialog>
      ) : null}

      {invited ? (
        <Dialog title={`Invite link for ${invited.email}`} onClose={() => setInvited(undefined)}>
          <InviteLink member={invited} onDone={() => setInvited(undefined)} />
        </Dialog>
      ) : null}

      {removing ? (
        <ConfirmDialog
          title={`Remove ${removing.email}?`}
          confirmLabel="Remove member"
          busyLabel="Removing…"
          onClose={() => setRemoving(undefined)}
          onConfirm={async () => {
            await api.removeMember(removing.id);
            members.setData((current) =>
              current ? { data: current.data.filter((m) => m.id !== removing.id) } : current,
            );
            setRemoving(undefined);
            setNotice(`${removing.email} was removed; their sessions have ended.`);
          }}
        >
          <p>They are signed out at once and can no longer sign in to this account.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}

function InviteForm({
  roles,
  onCancel,
  onInvited,
}: {
  roles: readonly Role[];
  onCancel(): void;
  onInvited(member: InvitedMember): void;
}) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("developer");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | undefined>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onInvited(await api.inviteMember(email.trim(), role));
    } catch (caught) {
      setError(caught instanceof Error ? caught : new Error(String(caught)));
      setBusy(false);
    }
  };
  const fieldError = (param: string) =>
    error instanceof ApiError && error.param === param ? error.message : undefined;

  return (
    <form className="form" onSubmit={submit} noValidate>
      {error instanceof ApiError && error.param ? null : <ErrorNotice error={error} />}
      <Field label="Email" error={fieldError("email")}>
        {(control) => (
          <input
            {...control}
            type="email"
            required
            autoComplete="off"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        )}
      </Field>
      <Field label="Role" error={fieldError("role")} hint={ROLE_SUMMARY[role]}>
        {(control) => (
          <select {...control} value={role} onChange={(event) => setRole(event.target.value as Role)}>
            {roles.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? "Inviting…" : "Create invite link"}
        </button>
      </div>
    </form>
  );
}

/** The invite's link, shown once: Dakiya sends no mail, so the inviter passes it on. */
function InviteLink({ member, onDone }: { member: InvitedMember; onDone(): void }) {
  const { boxRef, outcome, copy } = useCopySecret(member.invite_url);
  return (
    <div className="secret-reveal">
      <p className="notice notice-warning" role="alert">
        Copy this link now and send it to {member.email}. It is shown once, works once, and expires{" "}
        {formatDateTime(member.invite_expires_at)}.
      </p>
      <label className="secret-label" htmlFor="invite-link">
        Invite link
      </label>
      <div className="secret-row">
        <textarea
          ref={boxRef}
          id="invite-link"
          className="secret-box mono"
          readOnly
          rows={3}
          value={member.invite_url}
          onFocus={(event) => event.currentTarget.select()}
          spellCheck={false}
        />
        <button type="button" className="button" onClick={copy}>
          {outcome === "copied" ? "Copied" : "Copy"}
        </button>
      </div>
      <p className="field-hint" aria-live="polite">
        {outcome === "selected" ? "Your browser blocked copying: press Ctrl+C or ⌘C." : null}
      </p>
      <div className="dialog-actions">
        <button type="button" className="button button-primary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
