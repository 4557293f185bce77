"""Discord JSON error bodies, raised by handlers and rendered by the server middleware."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An error response exactly as Discord would send it."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def unauthorized() -> ApiError:
    return ApiError(401, 0, "401: Unauthorized")


def missing_permissions() -> ApiError:
    return ApiError(403, 50013, "Missing Permissions")


def missing_access() -> ApiError:
    return ApiError(403, 50001, "Missing Access")


def unknown_channel() -> ApiError:
    return ApiError(404, 10003, "Unknown Channel")


def unknown_message() -> ApiError:
    return ApiError(404, 10008, "Unknown Message")


def unknown_guild() -> ApiError:
    return ApiError(404, 10004, "Unknown Guild")


def unknown_member() -> ApiError:
    return ApiError(404, 10007, "Unknown Member")


def unknown_user() -> ApiError:
    return ApiError(404, 10013, "Unknown User")


def unknown_application() -> ApiError:
    return ApiError(404, 10002, "Unknown Application")


def unknown_command() -> ApiError:
    return ApiError(404, 10063, "Unknown application command")


def unknown_interaction() -> ApiError:
    return ApiError(404, 10062, "Unknown interaction")


def unknown_webhook() -> ApiError:
    return ApiError(404, 10015, "Unknown Webhook")


def already_acknowledged() -> ApiError:
    return ApiError(400, 40060, "Interaction has already been acknowledged.")


def empty_message() -> ApiError:
    return ApiError(400, 50006, "Cannot send an empty message")


def cannot_edit_others() -> ApiError:
    return ApiError(403, 50005, "Cannot edit a message authored by another user")


def invalid_form(field_errors: dict[str, str]) -> ApiError:
    """50035 with Discord's nested `errors` shape: path -> {"_errors": [...]}."""
    nested: dict[str, Any] = {}
    for path, text in field_errors.items():
        node = nested
        for part in path.split("."):
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": "BASE_TYPE_INVALID", "message": text})
    return ApiError(400, 50035, "Invalid Form Body", nested)
