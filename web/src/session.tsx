import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import {
  ApiError,
  api,
  isAbort,
  type SecondFactor,
  type SessionInfo,
  setCsrfToken,
  setSignedOutHandler,
  setTwoFactorRequiredHandler,
  type TwoFactorChallenge,
} from "./api";

export type SessionState =
  | { status: "loading" }
  | { status: "signed-in"; info: SessionInfo }
  | { status: "signed-out"; setupNeeded: boolean }
  | { status: "unavailable"; message: string };

/** What a password step leads to: signed in, or the challenge of the second step. */
export type PasswordOutcome = { signedIn: true } | { signedIn: false; challenge: string };

interface SessionContextValue {
  state: SessionState;
  signIn(email: string, password: string): Promise<PasswordOutcome>;
  /** The second step of signing in, for a member with two-factor sign-in. */
  answerChallenge(challenge: string, factor: SecondFactor): Promise<void>;
  setUp(email: string, password: string): Promise<void>;
  acceptInvite(token: string, password: string): Promise<PasswordOutcome>;
  signOut(): Promise<void>;
  /** Reads the session again, after a change to what it says (two-factor sign-in turned on or off). */
  refresh(): Promise<void>;
  retry(): void;
}

const SessionContext = createContext<SessionContextValue | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);

  const open = useCallback((info: SessionInfo) => {
    setCsrfToken(info.csrf_token);
    setState({ status: "signed-in", info });
  }, []);

  useEffect(() => {
    // Read so that retry(), which bumps `attempt`, runs the check again.
    void attempt;
    const controller = new AbortController();
    void loadSession(controller.signal).then((next) => {
      if (!next) return;
      if ("csrf_token" in next) open(next);
      else setState(next);
    });
    return () => controller.abort();
  }, [open, attempt]);

  const afterPassword = useCallback(
    (answer: SessionInfo | TwoFactorChallenge): PasswordOutcome => {
      if ("challenge" in answer) return { signedIn: false, challenge: answer.challenge };
      open(answer);
      return { signedIn: true };
    },
    [open],
  );

  const refresh = useCallback(async () => {
    try {
      open(await api.getSession());
    } catch {
      // A session that ended sends the console to sign-in on its own (the 401 handler).
    }
  }, [open]);

  useEffect(() => {
    // A member held to setting up two-factor sign-in: the session says so, and the console follows.
    setTwoFactorRequiredHandler(() => void refresh());
    return () => setTwoFactorRequiredHandler(undefined);
  }, [refresh]);

  useEffect(() => {
    // Only a session that was open can expire; the first check on load handles its own 401.
    setSignedOutHandler(() => {
      setCsrfToken(undefined);
      setState((current) =>
        current.status === "signed-in" ? { status: "signed-out", setupNeeded: false } : current,
      );
    });
    return () => setSignedOutHandler(undefined);
  }, []);

  const value = useMemo<SessionContextValue>(
    () => ({
      state,
      signIn: async (email, password) => afterPassword(await api.signIn(email, password)),
      answerChallenge: async (challenge, factor) => open(await api.answerChallenge(challenge, factor)),
      setUp: async (email, password) => open(await api.setUp(email, password)),
      acceptInvite: async (token, password) => afterPassword(await api.acceptInvite(token, password)),
      refresh,
      signOut: async () => {
        try {
          await api.signOut();
        } finally {
          setCsrfToken(undefined);
          setState({ status: "signed-out", setupNeeded: false });
        }
      },
      retry: () => {
        setState({ status: "loading" });
        setAttempt((n) => n + 1);
      },
    }),
    [state, open, afterPassword, refresh],
  );

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** The session if there is one; otherwise whether the installation still needs its first account. */
async function loadSession(signal: AbortSignal): Promise<SessionInfo | SessionState | undefined> {
  try {
    return await api.getSession(signal);
  } catch (error) {
    if (isAbort(error)) return undefined;
    if (!(error instanceof ApiError && error.status === 401)) {
      return { status: "unavailable", message: messageOf(error) };
    }
  }
  try {
    const setup = await api.getSetup(signal);
    return { status: "signed-out", setupNeeded: setup.needed };
  } catch (error) {
    if (isAbort(error)) return undefined;
    return { status: "unavailable", message: messageOf(error) };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : "Something went wrong.";
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession must be used inside <SessionProvider>");
  return value;
}

export interface SignedIn extends SessionInfo {
  /** Whether the member's role may call a dashboard route, e.g. `can("POST /dashboard/api/keys")`. */
  can(route: string): boolean;
  /** The account requires two-factor sign-in and the member has none: only Settings → Security works. */
  mustSetUpTwoFactor: boolean;
}

/** The signed-in member and what their role allows; only for pages behind the sign-in guard. */
export function useSignedIn(): SignedIn {
  const { state } = useSession();
  const info = state.status === "signed-in" ? state.info : undefined;
  const signedIn = useMemo(() => {
    if (!info) return undefined;
    const allowed = new Set(info.allowed);
    return {
      ...info,
      can: (route: string) => allowed.has(route),
      mustSetUpTwoFactor: info.account.require_two_factor && !info.member.two_factor,
    };
  }, [info]);
  if (!signedIn) throw new Error("useSignedIn needs a signed-in session");
  return signedIn;
}
