/**
 * The domain-filtering proxy a sandboxed skill with `skillgate.allowed-domains` reaches the
 * network through. See docs/running-scripts.md, "Network proxy".
 */
export {
  type AddressBlock,
  type AddressBlockOptions,
  BLOCKED_RANGES,
  type BlockedCategory,
  createAddressBlock,
} from "./address-block.js";
export {
  type DomainProxy,
  type DomainProxyOptions,
  MAX_SOCKET_PATH_BYTES,
  startDomainProxy,
} from "./domain-proxy.js";
export { DEFAULT_PROXY_LIMITS, type ProxyLimits, type ProxyStats } from "./proxy-state.js";
export {
  PROXY_REFUSAL_REASONS,
  type ProxyRefusal,
  type ProxyRefusalReason,
  refusalText,
} from "./refusals.js";
export { type Resolve, type ResolvedAddress, systemResolve } from "./resolve.js";
export { DEFAULT_PORTS, type ProxyRequestKind } from "./target.js";
