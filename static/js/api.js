// REST calls to the server; every failure becomes an ApiError with the server's stable code.

export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

async function request(method, path, { body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
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

export const api = {
  games: () => request("GET", "/api/games"),
  rooms: (game) => request("GET", game ? `/api/rooms?game=${encodeURIComponent(game)}` : "/api/rooms"),
  createRoom: (body) => request("POST", "/api/rooms", { body }),
  room: (id) => request("GET", room(id)),
  join: (id, name, seat) =>
    request("POST", `${room(id)}/join`, { body: seat === undefined ? { name } : { name, seat } }),
  leave: (id, token) => request("POST", `${room(id)}/leave`, { token }),
  addBot: (id, seat, level) => request("POST", `${room(id)}/bots`, { body: { seat, level } }),
  removeBot: (id, seat) => request("DELETE", `${room(id)}/bots/${seat}`),
  ready: (id, token) => request("POST", `${room(id)}/ready`, { token }),
  rematch: (id, token) => request("POST", `${room(id)}/rematch`, { token }),
  seatToBot: (id, seat, token) => request("POST", `${room(id)}/seats/${seat}/bot`, { token }),
  legal: (id, token) => request("GET", `${room(id)}/legal`, { token }),
  hint: (id, token) => request("GET", `${room(id)}/hint`, { token }),
  matches: (query = "") => request("GET", `/api/matches${query}`),
  match: (id) => request("GET", `/api/matches/${encodeURIComponent(id)}`),
  replay: (id) => request("GET", `/api/matches/${encodeURIComponent(id)}/replay`),
  playerStats: (name) => request("GET", `/api/players/${encodeURIComponent(name)}/stats`),
};
