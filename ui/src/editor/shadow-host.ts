/**
 * Where CodeMirror is mounted: inside an open shadow root of `host`. The server's CSP allows no
 * inline style, and CodeMirror's style library writes a `<style>` element into a document's
 * head but uses a constructed stylesheet (CSSOM, which CSP does not block) inside a shadow root.
 * Re-attaching to a host that already has one reuses it.
 */
export function shadowMount(host: HTMLElement): { readonly root: ShadowRoot; readonly parent: HTMLElement } {
  const root = host.shadowRoot ?? host.attachShadow({ mode: "open" });
  root.replaceChildren();
  const parent = document.createElement("div");
  parent.className = "cm-host";
  root.append(parent);
  return { root, parent };
}
