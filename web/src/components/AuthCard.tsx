import type { ReactNode } from "react";
import { Logo } from "./icons";

/** The centred card of the pages before sign-in. */
export function AuthCard({
  title,
  intro,
  children,
}: {
  title: string;
  intro?: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="auth-screen">
      <div className="auth-brand">
        <Logo />
        <span>Dakiya</span>
      </div>
      <main className="auth-card">
        <h1>{title}</h1>
        {intro}
        {children}
      </main>
      <p className="auth-footer">Messaging API for India: DLT SMS, OTP, WhatsApp and voice.</p>
    </div>
  );
}
