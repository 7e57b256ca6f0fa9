/** Unpadded base64url, the shape every opaque cursor takes. */

/** Unpadded base64url of a (Latin-1) string. */
export const toBase64Url = (text: string): string =>
  btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** Inverse of toBase64Url; throws on text that is not base64. */
export const fromBase64Url = (text: string): string => atob(text.replace(/-/g, "+").replace(/_/g, "/"));
