// The JSON API of the same origin. A token, when one is needed, is asked for once and kept in
// this module's memory only (never in localStorage or a cookie): it is gone when the tab is.

let token = null;

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** True once a token was given in this tab. */
export function hasToken() {
  return token !== null;
}

/** Ask for a token in the shell's dialog; resolves to the token, or null when cancelled. */
export function askToken(why) {
  const dialog = document.getElementById("token-dialog");
  const form = document.getElementById("token-form");
  const input = document.getElementById("token-input");
  document.getElementById("token-why").textContent = why;
  input.value = "";
  return new Promise((resolve) => {
    const finish = (value) => {
      form.removeEventListener("submit", submitted);
      cancel.removeEventListener("click", cancelled);
      dialog.removeEventListener("cancel", cancelled);
      if (dialog.open) dialog.close();
      resolve(value);
    };
    const submitted = (event) => {
      event.preventDefault();
      const value = input.value.trim();
      if (value) token = value;
      finish(value || null);
    };
    const cancelled = (event) => {
      event.preventDefault();
      finish(null);
    };
    const cancel = document.getElementById("token-cancel");
    form.addEventListener("submit", submitted);
    cancel.addEventListener("click", cancelled);
    dialog.addEventListener("cancel", cancelled);
    dialog.showModal();
    input.focus();
  });
}

async function send(path, { method = "GET", body, accept = "application/json" }) {
  const headers = { Accept: accept };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function problemOf(response) {
  try {
    return await response.json();
  } catch {
    return { title: response.statusText };
  }
}

/**
 * Call the API. `admin`: the call changes something, so the admin token is asked for first
 * when none was given yet (no request is sent without it). On 401/403 the token is asked for
 * (again) and the call retried once. JSON answers are parsed; `text: true` returns the text.
 */
export async function api(path, { method = "GET", body, admin = false, text = false } = {}) {
  if (admin && !token) {
    const given = await askToken("This changes the service's state: it needs the admin token.");
    if (!given) throw new ApiError(401, { detail: "no admin token given" });
  }
  const accept = text ? "text/html, text/plain" : "application/json";
  let response = await send(path, { method, body, accept });
  if (response.status === 401 || response.status === 403) {
    const problem = await problemOf(response);
    const why = response.status === 403
      ? `This needs the admin token (${problem.detail || "forbidden"}).`
      : `The service asks for a token: ${problem.detail || "unauthorized"}.`;
    const given = await askToken(why);
    if (!given) throw new ApiError(response.status, problem);
    response = await send(path, { method, body, accept });
  }
  if (!response.ok) throw new ApiError(response.status, await problemOf(response));
  if (response.status === 204) return null;
  return text ? response.text() : response.json();
}
