"""The demo's administrator: created once with a generated password, printed once.

The password is written to ``var/admin-password`` (mode 0600, created atomically) so a
later ``make demo`` can say where it is without printing it again. An existing ``admin``
user is never changed.
"""

import os
import secrets

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the demo's 'admin' superuser with a generated password (once) and say how to log in."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="admin")

    def handle(self, *args, username, **options):
        users = get_user_model()
        password_file = settings.VAR_DIR / "admin-password"
        if users.objects.filter(username=username).exists():
            where = f"the password is in {password_file}" if password_file.exists() else "its password was set before"
            self.stdout.write(f"Admin: /admin/ as '{username}' ({where}).")
            return
        password = secrets.token_urlsafe(12)
        users.objects.create_superuser(username=username, email="", password=password)
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(password + "\n")
        self.stdout.write(
            f"Admin: /admin/ as '{username}' with password {password} (printed once; also in {password_file})."
        )
