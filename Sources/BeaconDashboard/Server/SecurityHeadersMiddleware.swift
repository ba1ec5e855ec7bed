import HTTPTypes
import Hummingbird

/// The headers every answer carries, errors included: a content security policy that lets the
/// page load only its own script, style and API (no inline script, no other site, no framing),
/// `nosniff`, `X-Frame-Options: DENY` for browsers without `frame-ancestors`, and no referrer to
/// other sites (`same-origin`: with `no-referrer` a browser's own form posts would carry
/// `Origin: null`, which the ``HostCheckMiddleware`` refuses).
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var policy: ContentSecurityPolicy {
        [
            .defaultSrc(.none), .scriptSrc(.self), .styleSrc(.self), .imgSrc(.self), .connectSrc(.self),
            .formAction(.self), .frameAncestors(.none), .baseURI(.none),
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = Self.policy.description
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.referrerPolicy] = "same-origin"
        return response
    }
}

extension HTTPField.Name {
    /// `X-Frame-Options`.
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    /// `Referrer-Policy`.
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
