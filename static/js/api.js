// REST calls to the server; every failure becomes an ApiError with the server's stable code.

export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

// token: a seat token (Bearer); key: a player key (Player). A call sends one of them.
async function request(method, path, { body, token, key } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  else if (key) headers.Authorization = `Player ${key}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError("network_error", String(error), 0);
  }
  let data = null;
  if (response.status === 204) return null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = data?.error;
    if (error?.code) throw new ApiError(error.code, error.message ?? "", response.status);
    // FastAPI's own validation errors arrive as {"detail": [...]}.
    const detail = Array.isArray(data?.detail)
      ? data.detail.map((d) => `${(d.loc ?? []).join(".")}: ${d.msg}`).join("; ")
      : (data?.detail ?? response.statusText);
    throw new ApiError(`http_${response.status}`, String(detail), response.status);
  }
  return data;
}

const room = (id) => `/api/rooms/${encodeURIComponent(id)}`;
const player = (id) => `/api/players/${encodeURIComponent(id)}`;

export const api = {
  games: () => request("GET", "/api/games"),
  rooms: (game) => request("GET", game ? `/api/rooms?game=${encodeURIComponent(game)}` : "/api/rooms"),
  createRoom: (body) => request("POST", "/api/rooms", { body }),
  room: (id) => request("GET", room(id)),
  join: (id, name, seat, key) =>
    request("POST", `${room(id)}/join`, { body: seat === undefined ? { name } : { name, seat }, key }),
  leave: (id, token) => request("POST", `${room(id)}/leave`, { token }),
  addBot: (id, seat, level) => request("POST", `${room(id)}/bots`, { body: { seat, level } }),
  removeBot: (id, seat) => request("DELETE", `${room(id)}/bots/${seat}`),
  ready: (id, token) => request("POST", `${room(id)}/ready`, { token }),
  rematch: (id, token) => request("POST", `${room(id)}/rematch`, { token }),
  seatToBot: (id, seat, token) => request("POST", `${room(id)}/seats/${seat}/bot`, { token }),
  legal: (id, token) => request("GET", `${room(id)}/legal`, { token }),
  hint: (id, token) => request("GET", `${room(id)}/hint`, { token }),
  matches: (query = "", key) => request("GET", `/api/matches${query}`, { key }),
  // room: the room's id, which reads a private room's match as its invite link does.
  match: (id, { token, key, room: roomId } = {}) =>
    request("GET", `/api/matches/${encodeURIComponent(id)}${roomId ? `?room=${encodeURIComponent(roomId)}` : ""}`, { token, key }),
  replay: (id, key) => request("GET", `/api/matches/${encodeURIComponent(id)}/replay`, { key }),
  playerStats: (name) => request("GET", `${player(name)}/stats`),
  createPlayer: (name) => request("POST", "/api/players", { body: { name } }),
  renamePlayer: (key, name) => request("PATCH", "/api/players/me", { body: { name }, key }),
  forgetPlayer: (key) => request("DELETE", "/api/players/me", { key }),
  linkCode: (key) => request("POST", "/api/players/me/link-codes", { key }),
  linkDevice: (code) => request("POST", "/api/players/link", { body: { code } }),
  signOutOthers: (key) => request("POST", "/api/players/me/sign-out-others", { key }),
  profile: (id, key) => request("GET", player(id), { key }),
  headToHead: (id, { offset, limit = 50, key }) => request("GET", `${player(id)}/head-to-head?limit=${limit}&offset=${offset}`, { key }),
  leaderboard: (game, query, key) =>
    request("GET", `/api/leaderboards/${encodeURIComponent(game)}?${new URLSearchParams(query)}`, { key }),
};
