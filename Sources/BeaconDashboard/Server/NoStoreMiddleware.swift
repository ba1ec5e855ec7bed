import Hummingbird

/// Marks every answer of the API `Cache-Control: no-store`, errors included: the numbers are
/// live, and a cached count is a wrong count.
struct NoStoreMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
