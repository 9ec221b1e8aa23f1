// pyhearts web table: the player profile this browser keeps (localStorage "pyhearts.player" =
// {id, name, key}; the server stores only the key's hash), and the name it goes by. No page
// of its own (player.js draws the profile page); ui.js's requests carry its key. A profile
// signed in with a passkey has no key here ({id, name, key: null}): its session cookie
// (HttpOnly: no script reads it) goes with every request to the server instead.
//
//   current()        // {id, name, key} (key: a string, or null) or null
//   store(p)         // keeps {id, name, key}
//   clear()          // forgets it
//   auth(key)        // {Authorization: "Bearer …"} (the profile's key, or ``key``) or {}
//   myName()         // the profile's name, else the last one chosen at a table, else ""
const KEY = "pyhearts.player";

export function current() {
  try {
    const p = JSON.parse(localStorage.getItem(KEY) || "null");
    return p && typeof p.id === "string" && (typeof p.key === "string" || p.key === null) && typeof p.name === "string" ? p : null;
  } catch (e) { return null; }
}
export const store = (p) => localStorage.setItem(KEY, JSON.stringify({ id: p.id, name: p.name, key: p.key || null }));
export const clear = () => localStorage.removeItem(KEY);
export function auth(key) {
  const k = key || (current() || {}).key;
  return k ? { Authorization: "Bearer " + k } : {};
}

// The name this browser goes by: the player profile's, else the last one chosen at a table.
export function myName() {
  try {
    const profile = JSON.parse(localStorage.getItem(KEY) || "null");
    if (profile && typeof profile.name === "string" && profile.name.trim()) return profile.name.trim();
  } catch (e) { /* no profile */ }
  return (localStorage.getItem("pyhearts:name") || "").trim();
}
