"""Memory sent to chat clients: what is sent, where each client keeps it, and keeping it in step."""
