/**
 * An AWS Signature Version 4 check as the service does it, written from AWS's specification
 * (not from the signing library): the canonical request of the request as received, the string
 * to sign and the HMAC chain of the secret key.
 *
 * @module
 */
import { createHash, createHmac } from "node:crypto";
import type { MockRequest } from "../../src/testing/mock_llm_server.ts";

/** The parts of an `Authorization: AWS4-HMAC-SHA256 …` header. */
export interface SigV4Authorization {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** Parses the Authorization header (null when it is not SigV4). */
export function parseSigV4(header: string | undefined): SigV4Authorization | null {
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/
      .exec(header ?? "");
  if (!match) return null;
  return {
    accessKeyId: match[1]!,
    date: match[2]!,
    region: match[3]!,
    service: match[4]!,
    signedHeaders: match[5]!.split(";"),
    signature: match[6]!,
  };
}

/** RFC 3986 percent-encoding (as AWS canonicalizes). */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The signature the request should carry, given the secret key (`auth` from its header). */
export function expectedSigV4(
  request: MockRequest,
  auth: SigV4Authorization,
  secretAccessKey: string,
): string {
  const [pathname, search = ""] = request.path.split("?") as [string, string?];
  // Services other than S3 encode each path segment twice: once in the URL, once here.
  const canonicalUri = pathname.split("/").map(uriEncode).join("/");
  const canonicalQuery = search === "" ? "" : [...new URLSearchParams(search)]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0))
    .map((pair) => pair.join("="))
    .join("&");
  const canonicalHeaders = auth.signedHeaders
    .map((name) => `${name}:${(request.headers[name] ?? "").trim().replace(/\s+/g, " ")}\n`)
    .join("");
  const payloadHash = createHash("sha256").update(request.rawBody ?? "").digest("hex");
  const canonicalRequest = [
    request.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    auth.signedHeaders.join(";"),
    payloadHash,
  ].join("\n");
  const amzDate = request.headers["x-amz-date"] ?? "";
  const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    amzDate,
    scope,
    createHash("sha256").update(canonicalRequest).digest("hex"),
  ].join("\n");
  let key: Buffer = createHmac("sha256", `AWS4${secretAccessKey}`).update(auth.date).digest();
  for (const part of [auth.region, auth.service, "aws4_request"]) {
    key = createHmac("sha256", key).update(part).digest();
  }
  return createHmac("sha256", key).update(stringToSign).digest("hex");
}
