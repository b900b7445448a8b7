import { type ReactNode, useEffect, useRef, useState } from "react";
import { ApiError, setUnauthorizedHandler } from "./api/client.js";
import { getReview, listApprovals } from "./api/review.js";
import { logOut } from "./api/session.js";
import { LiveProvider, useLive } from "./live.js";
import { AsksPage } from "./pages/asks-page.js";
import { AuditPage } from "./pages/audit-page.js";
import { ChatsPage, TranscriptPage } from "./pages/chats-page.js";
import { EditorPage } from "./pages/editor-page.js";
import { GenerationsPage } from "./pages/generations-page.js";
import { ImportPage } from "./pages/import-page.js";
import { LoginPage } from "./pages/login-page.js";
import { NodesPage } from "./pages/nodes-page.js";
import { PlanPage } from "./pages/plan-page.js";
import { QueuePage } from "./pages/queue-page.js";
import { ReviewPage } from "./pages/review-page.js";
import { SkillPage } from "./pages/skill-page.js";
import { SkillsListPage } from "./pages/skills-list.js";
import { type Route, useRoute } from "./router.js";
import { useApi } from "./use-api.js";

/** The page of a route. */
function PageOf(props: { readonly route: Route }): ReactNode {
  const { route } = props;
  switch (route.page) {
    case "skills":
      return <SkillsListPage />;
    case "skill":
      return <SkillPage key={route.name} name={route.name} />;
    case "editor":
      return <EditorPage key={`${route.name}/${route.path}`} name={route.name} path={route.path} />;
    case "review":
      return <ReviewPage />;
    case "plan":
      return <PlanPage key={route.id} id={route.id} />;
    case "asks":
      return <AsksPage />;
    case "chats":
      return <ChatsPage />;
    case "transcript":
      return <TranscriptPage key={route.id} id={route.id} />;
    case "audit":
      return (
        <AuditPage
          key={`${route.skill ?? ""}|${route.chat ?? ""}`}
          {...(route.skill !== undefined ? { skill: route.skill } : {})}
          {...(route.chat !== undefined ? { chat: route.chat } : {})}
        />
      );
    case "import":
      return <ImportPage />;
    case "nodes":
      return <NodesPage />;
    case "queue":
      return <QueuePage />;
    case "generations":
      return <GenerationsPage />;
    case "not-found":
      return (
        <section>
          <h1>Not found</h1>
          <p>
            Nothing lives at <code>{route.hash}</code>. <a href="#/skills">Back to the skills</a>.
          </p>
        </section>
      );
  }
}

/** The links of the header; `current` marks the page shown. */
const NAV: readonly {
  readonly href: string;
  readonly label: string;
  readonly pages: readonly Route["page"][];
}[] = [
  { href: "#/skills", label: "Skills", pages: ["skills", "skill", "editor"] },
  { href: "#/review", label: "Review", pages: ["review", "plan"] },
  { href: "#/asks", label: "Asks", pages: ["asks"] },
  { href: "#/chats", label: "Chats", pages: ["chats", "transcript"] },
  { href: "#/audit", label: "Audit", pages: ["audit"] },
  { href: "#/import", label: "Import", pages: ["import"] },
  { href: "#/nodes", label: "Nodes", pages: ["nodes"] },
  { href: "#/queue", label: "Queue", pages: ["queue"] },
  { href: "#/generations", label: "Generations", pages: ["generations"] },
];

/** The header: navigation with the Needs review count and the asks waiting, kept live. */
function Header(props: { readonly route: Route; readonly onSignOut: () => void }): ReactNode {
  const live = useLive();
  const review = useApi(() => getReview(), [live.version]);
  const asks = useApi(() => listApprovals(), [live.version]);
  const needsReview = review.value?.needsReview ?? 0;
  const waiting = asks.value?.length ?? 0;
  return (
    <header className="top">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <a className="brand" href="#/skills">
        skillgate
      </a>
      <nav aria-label="Pages">
        <ul>
          {NAV.map((item) => (
            <li key={item.href}>
              <a href={item.href} aria-current={item.pages.includes(props.route.page) ? "page" : undefined}>
                {item.label}
                {item.label === "Review" && needsReview > 0 ? (
                  <span className="count" data-testid="needs-review">
                    {needsReview}
                    <span className="visually-hidden"> need review</span>
                  </span>
                ) : null}
                {item.label === "Asks" && waiting > 0 ? (
                  <span className="count">
                    {waiting}
                    <span className="visually-hidden"> waiting</span>
                  </span>
                ) : null}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <button type="button" className="link" onClick={props.onSignOut}>
        Sign out
      </button>
    </header>
  );
}

/** The signed-in app: header, the routed page, focus moved to the page on navigation. */
function SignedIn(props: { readonly onSignOut: () => void }): ReactNode {
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  // The route shown last: focus moves only when the page really changes, never on first load
  // (so the first Tab still reaches the skip link).
  const routeKey = JSON.stringify(route);
  const shown = useRef(routeKey);
  useEffect(() => {
    if (shown.current === routeKey) return undefined;
    shown.current = routeKey;
    const container = main.current;
    if (container === null) return undefined;
    // After navigating, keyboard and screen-reader users land on the new page's heading, which
    // a page that loads first shows a moment later.
    const focusHeading = (): boolean => {
      const heading = container.querySelector("h1");
      if (!(heading instanceof HTMLElement)) return false;
      heading.tabIndex = -1;
      heading.focus();
      return true;
    };
    if (focusHeading()) return undefined;
    const observer = new MutationObserver(() => {
      if (focusHeading()) observer.disconnect();
    });
    observer.observe(container, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [routeKey]);

  return (
    <LiveProvider>
      <Header route={route} onSignOut={props.onSignOut} />
      <main id="main" ref={main} tabIndex={-1}>
        <PageOf route={route} />
      </main>
    </LiveProvider>
  );
}

/** Signed in or not: the server's answer to a first read decides; a 401 later shows the login page. */
export function App(): ReactNode {
  const [session, setSession] = useState<"checking" | "in" | "out">("checking");
  useEffect(() => {
    setUnauthorizedHandler(() => setSession("out"));
    getReview().then(
      () => setSession("in"),
      (error: unknown) => setSession(error instanceof ApiError && error.status === 401 ? "out" : "in"),
    );
  }, []);
  if (session === "checking") return null;
  if (session === "out") return <LoginPage onSignedIn={() => setSession("in")} />;
  return (
    <SignedIn
      onSignOut={() => {
        logOut().finally(() => setSession("out"));
      }}
    />
  );
}
