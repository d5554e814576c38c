import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { App } from "./App";
import { EnvironmentProvider } from "./environment";
import { SessionProvider } from "./session";
import "./styles.css";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");

createRoot(root).render(
  <StrictMode>
    <BrowserRouter>
      <SessionProvider>
        <EnvironmentProvider>
          <App />
        </EnvironmentProvider>
      </SessionProvider>
    </BrowserRouter>
  </StrictMode>,
);
