FROM python:3.11-slim
WORKDIR /srv/meldhall
COPY pyproject.toml README.md ./
COPY app ./app
RUN pip install --no-cache-dir .
COPY static ./static
COPY migrations ./migrations
RUN useradd --create-home meldhall
USER meldhall
EXPOSE 8000
CMD ["meldhall", "serve", "--host", "0.0.0.0"]
