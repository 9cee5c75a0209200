// Preloaded into the MCP conformance suite (`node --require loopback.cjs ...`): the servers its client scenarios
// start call `listen(0)`, which listens on every interface; here a listen without a host listens on 127.0.0.1.
"use strict";
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [first, second] = args;
  if (typeof first === "number" && typeof second !== "string") {
    args.splice(1, 0, "127.0.0.1");
  } else if (first && typeof first === "object" && "port" in first && first.host === undefined) {
    args[0] = { ...first, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
