// The errors of the API's calls, whoever answers them (the server through
// api.js, or the browser through offline.js): an ApiError carries the
// status and the server's message; needsServer's says plainly that
// something needs the server.

import { t } from "./i18n.js";
import { build } from "./build.js";

export class ApiError extends Error {
  constructor(status, message, network = false) {
    super(message);
    this.status = status;
    this.network = network;
  }
}

/** The error of something that needs the server, said plainly (the static site has none). */
export function needsServer(text = build.server ? t("offline.needsServer") : t("site.noServer")) {
  const err = new ApiError(0, text);
  err.offline = true;
  return err;
}
