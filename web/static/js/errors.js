// The errors of the API's calls, whoever answers them (the server through
// api.js, or the browser through offline.js): an ApiError carries the
// status and the server's message; needsServer's says plainly that
// something needs the server.

import { t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, message, network = false) {
    super(message);
    this.status = status;
    this.network = network;
  }
}

/** The error of something that needs the server, said plainly. */
export function needsServer(text = t("offline.needsServer")) {
  const err = new ApiError(0, text);
  err.offline = true;
  return err;
}
